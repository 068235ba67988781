import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import { OnnxGraph } from "../onnx/onnx-graph.ts";

/**
 * Shading transfer, compositing, background and lighting as one ONNX graph over the whole
 * person image (planar RGB in [0, 1]). One graph per realism level, since the edge softening
 * is a fixed kernel.
 *
 * Inputs
 * - person [1, 3, H, W]; background [1, 3, H, W]
 * - mask [1, 1, h, w]: person probability at the segmenter's size, resized here to H × W
 * - warped [1, 4, Hb, Wb]: the warped garment (premultiplied RGBA); pads [8]: where its box sits
 * - xs [W], ys [H]: pixel centres; nx [W], ny [H]: the same in [-1, 1] (for the vignette)
 * - face [4]: cx, cy, rx, ry of the ellipse the garment must not cover
 * - params [8]: gain R, G, B; contrast; lift; vignette; background mix; shading strength
 * Outputs: rgb [1, 3, H, W]; alpha [1, 1, H, W] (person ∪ garment, for transparent backgrounds)
 */
export const PARAMS = { gainR: 0, gainG: 1, gainB: 2, contrast: 3, lift: 4, vignette: 5, backgroundMix: 6, shading: 7 } as const;

export const buildCompositeGraph = (realism: TryOnSettings["realismLevel"]): Uint8Array => {
  const g = new OnnxGraph();
  const person = g.input("person", "float32", [1, 3, "h", "w"]);
  const probabilities = g.input("mask", "float32", [1, 1, "mh", "mw"]);
  const background = g.input("background", "float32", [1, 3, "h", "w"]);
  const warped = g.input("warped", "float32", [1, 4, "hb", "wb"]);
  const pads = g.input("pads", "int64", [8]);
  const xs = g.input("xs", "float32", ["w"]);
  const ys = g.input("ys", "float32", ["h"]);
  const nx = g.input("nx", "float32", ["w"]);
  const ny = g.input("ny", "float32", ["h"]);
  const face = g.input("face", "float32", [4]);
  const params = g.input("params", "float32", [8]);

  const personShape = g.node("Shape", [person]);
  const planeShape = g.node("Concat", [g.int64s([1, 1]), g.node("Slice", [personShape, g.int64s([2]), g.int64s([4])])], { axis: { i: 0 } });
  const mask = g.node("Resize", [probabilities, "", "", planeShape], { mode: { s: "linear" } });
  const param = (index: number, dims: ReadonlyArray<number> = []) =>
    g.node("Reshape", [g.node("Slice", [params, g.int64s([index]), g.int64s([index + 1])]), g.int64s(dims)]);
  const row = (v: string) => g.node("Unsqueeze", [v, g.int64s([0])]); // [1, W]
  const column = (v: string) => g.node("Unsqueeze", [v, g.int64s([1])]); // [H, 1]
  const square = (v: string) => g.node("Mul", [v, v]);
  const channels = (t: string, from: number, to: number) => g.node("Slice", [t, g.int64s([from]), g.int64s([to]), g.int64s([1])]);
  const faceAt = (i: number) => g.node("Slice", [face, g.int64s([i]), g.int64s([i + 1])]);

  // The garment, placed in the full frame, kept off the face (soft edge over a third of the radius).
  const placed = g.node("Pad", [warped, pads]);
  const faceDistance = g.node("Add", [
    square(g.node("Div", [g.node("Sub", [row(xs), faceAt(0)]), faceAt(2)])),
    square(g.node("Div", [g.node("Sub", [column(ys), faceAt(1)]), faceAt(3)])),
  ]);
  const keep = g.node("Clip", [g.node("Mul", [g.node("Sub", [faceDistance, g.floats([1], [])]), g.floats([3], [])]), g.floats([0], []), g.floats([1], [])]);
  const alphaRaw = g.node("Mul", [channels(placed, 3, 4), keep]);
  const colourPremultiplied = g.node("Mul", [channels(placed, 0, 3), keep]);
  const colour = g.node("Clip", [g.node("Div", [colourPremultiplied, g.node("Max", [alphaRaw, g.floats([1e-4], [])])]), g.floats([0], []), g.floats([1], [])]);

  // Edges: hard for drafts; otherwise softened inward only, so no backdrop colour bleeds out.
  const soften = (k: number) =>
    g.node("Min", [alphaRaw, g.node("AveragePool", [alphaRaw], { kernel_shape: { ints: [k, k] }, pads: { ints: [k >> 1, k >> 1, k >> 1, k >> 1] } })]);
  const alpha =
    realism === "draft" ? g.node("Cast", [g.node("GreaterOrEqual", [alphaRaw, g.floats([0.5], [])])], { to: { i: 1 } }) : soften(realism === "standard" ? 3 : 5);

  // Shading: the person's luminance under the garment, relative to its mean there. "standard"
  // keeps only large-scale light (8×8 block means, resized back smoothly); "high" adds fine
  // detail (folds, creases), capped at ±15 % so prints and badges underneath do not show through.
  const luminance = g.node("ReduceSum", [g.node("Mul", [person, g.floats([0.299, 0.587, 0.114], [1, 3, 1, 1])]), g.int64s([1])], { keepdims: { i: 1 } });
  const blocks = g.node("AveragePool", [luminance], { kernel_shape: { ints: [8, 8] }, strides: { ints: [8, 8] }, ceil_mode: { i: 1 } });
  const largeScale = g.node("Resize", [blocks, "", "", planeShape], { mode: { s: "linear" } });
  const detail = g.node("Clip", [g.node("Div", [luminance, g.node("Max", [largeScale, g.floats([1e-3], [])])]), g.floats([0.85], []), g.floats([1.15], [])]);
  const shadingSource = realism === "high" ? g.node("Mul", [largeScale, detail]) : largeScale;
  const sum = (t: string) => g.node("ReduceSum", [t], { keepdims: { i: 0 } });
  const meanUnder = g.node("Div", [sum(g.node("Mul", [shadingSource, alpha])), g.node("Max", [sum(alpha), g.floats([1e-6], [])])]);
  const relative = g.node("Div", [shadingSource, g.node("Max", [meanUnder, g.floats([1e-3], [])])]);
  const shade = g.node("Clip", [
    g.node("Add", [g.floats([1], []), g.node("Mul", [param(PARAMS.shading), g.node("Sub", [relative, g.floats([1], [])])])]),
    g.floats([0.3], []),
    g.floats([1.7], []),
  ]);
  const garmentColour = g.node("Clip", [g.node("Mul", [colour, shade]), g.floats([0], []), g.floats([1], [])]);
  const composite = g.node("Add", [person, g.node("Mul", [alpha, g.node("Sub", [garmentColour, person])])]);

  // Background: the person (and garment) stay; the rest moves toward `background` by the mix.
  const foreground = g.node("Max", [mask, alpha]);
  const behind = g.node("Mul", [param(PARAMS.backgroundMix), g.node("Sub", [g.floats([1], []), foreground])]);
  const staged = g.node("Add", [composite, g.node("Mul", [behind, g.node("Sub", [background, composite])])]);

  // Lighting: contrast about mid-grey, lift, per-channel gain, then a radial vignette.
  const gains = g.node("Reshape", [g.node("Slice", [params, g.int64s([0]), g.int64s([3])]), g.int64s([1, 3, 1, 1])]);
  const contrasted = g.node("Add", [g.node("Mul", [g.node("Sub", [staged, g.floats([0.5], [])]), param(PARAMS.contrast)]), g.node("Add", [g.floats([0.5], []), param(PARAMS.lift)])]);
  const radius2 = g.node("Add", [square(row(nx)), square(column(ny))]);
  const vignette = g.node("Sub", [g.floats([1], []), g.node("Mul", [param(PARAMS.vignette), g.node("Mul", [radius2, g.floats([0.5], [])])])]);
  g.node("Clip", [g.node("Mul", [g.node("Mul", [contrasted, gains]), vignette]), g.floats([0], []), g.floats([1], [])], {}, ["rgb"]);
  g.node("Identity", [foreground], {}, ["alpha"]);
  g.output("rgb", "float32", [1, 3, "h", "w"]);
  g.output("alpha", "float32", [1, 1, "h", "w"]);
  return g.encode(17);
};
