import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import { OnnxGraph } from "../onnx/onnx-graph.ts";
import { SHADING_BLOCK } from "./broad-shading.ts";

/**
 * Shading transfer and the layers of the composite as one ONNX graph at the working resolution
 * (planar RGB in [0, 1]). It does not composite: it outputs smooth, low-resolution layers that
 * libvips scales up and lays over the full-size photo (full-size-composite.ts), so the cost of
 * this graph does not grow with the photo. One graph per realism level, since the edge
 * softening is a fixed kernel.
 *
 * Inputs
 * - person [1, 3, H, W]; background [1, 3, H, W]
 * - mask [1, 1, h, w]: person probability at the segmenter's size, resized here to H × W
 * - front [1, 1, fh, fw]: how much of each pixel lies in front of the garment (hair over the torso,
 *   hair-in-front.ts), at its own size, resized here to H × W
 * - warped [1, 4, Hb, Wb]: the warped garment (premultiplied RGBA); pads [8]: where its box sits
 * - xs [W], ys [H]: pixel centres; nx [W], ny [H]: the same in [-1, 1] (for the vignette)
 * - face [4]: cx, cy, rx, ry of the ellipse the garment must not cover
 * - kernel [k]: the broad shading's 1-D Gaussian at the blocks' scale (broad-shading.ts)
 * - params [4]: background mix; shading strength; vignette strength; spill clip (1: the garment
 *   stays within the person's silhouette dilated by SILHOUETTE_MARGIN pixels; 0: it may widen past it)
 * Outputs, interleaved bytes (0-255):
 * - garment [1, H, W, 4]: the shaded garment's colour and its coverage
 * - backdrop [1, H, W, 4]: the background's colour and how much it replaces (nothing over the person)
 * - foreground [1, H, W, 1]: person ∪ garment (the alpha of a transparent background)
 * - vignette [1, H, W, 1]: the factor the lighting darkens each pixel by
 */
export const PARAMS = { backgroundMix: 0, shading: 1, vignette: 2, spillClip: 3 } as const;
/** How far (working pixels) the garment may reach past the person's silhouette: its own edge and the mask's blur. */
export const SILHOUETTE_MARGIN = 3;
/** The garment's edge around the face ellipse fades over 1/this of its radius: a neckline, not a smear of the old collar. */
const NECKLINE_SHARPNESS = 8;
/** The garment is lit at most this much darker or lighter than its mean: a shadow, never a black patch. */
const SHADE_RANGE = [0.7, 1.2] as const;
/** Each pixel's luminance, relative to the garment's mean, counts for the shading within this range. */
const LUMINANCE_RANGE = [0.5, 1.4] as const;

export const buildCompositeGraph = (realism: TryOnSettings["realismLevel"]): Uint8Array => {
  const g = new OnnxGraph();
  const person = g.input("person", "float32", [1, 3, "h", "w"]);
  const probabilities = g.input("mask", "float32", [1, 1, "mh", "mw"]);
  const front = g.input("front", "float32", [1, 1, "fh", "fw"]);
  const background = g.input("background", "float32", [1, 3, "h", "w"]);
  const warped = g.input("warped", "float32", [1, 4, "hb", "wb"]);
  const pads = g.input("pads", "int64", [8]);
  const xs = g.input("xs", "float32", ["w"]);
  const ys = g.input("ys", "float32", ["h"]);
  const nx = g.input("nx", "float32", ["w"]);
  const ny = g.input("ny", "float32", ["h"]);
  const face = g.input("face", "float32", [4]);
  const params = g.input("params", "float32", [4]);
  const kernel = g.input("kernel", "float32", ["k"]);

  const personShape = g.node("Shape", [person]);
  const planeShape = g.node("Concat", [g.int64s([1, 1]), g.node("Slice", [personShape, g.int64s([2]), g.int64s([4])])], { axis: { i: 0 } });
  const mask = g.node("Resize", [probabilities, "", "", planeShape], { mode: { s: "linear" } });
  const behindFront = g.node("Sub", [g.floats([1], []), g.node("Resize", [front, "", "", planeShape], { mode: { s: "linear" } })]);
  const param = (index: number, dims: ReadonlyArray<number> = []) =>
    g.node("Reshape", [g.node("Slice", [params, g.int64s([index]), g.int64s([index + 1])]), g.int64s(dims)]);
  const row = (v: string) => g.node("Unsqueeze", [v, g.int64s([0])]); // [1, W]
  const column = (v: string) => g.node("Unsqueeze", [v, g.int64s([1])]); // [H, 1]
  const square = (v: string) => g.node("Mul", [v, v]);
  const channels = (t: string, from: number, to: number) => g.node("Slice", [t, g.int64s([from]), g.int64s([to]), g.int64s([1])]);
  const faceAt = (i: number) => g.node("Slice", [face, g.int64s([i]), g.int64s([i + 1])]);
  // [1, C, H, W] in [0, 1] → [1, H, W, C] bytes, rounded.
  const bytes = (t: string, name: string) =>
    g.node(
      "Cast",
      [
        g.node(
          "Transpose",
          [g.node("Clip", [g.node("Add", [g.node("Mul", [t, g.floats([255], [])]), g.floats([0.5], [])]), g.floats([0], []), g.floats([255], [])])],
          { perm: { ints: [0, 2, 3, 1] } },
        ),
      ],
      { to: { i: 2 } },
      [name],
    );

  // The garment, placed in the full frame, kept off the face (a narrow soft edge, NECKLINE_SHARPNESS).
  const placed = g.node("Pad", [warped, pads]);
  const faceDistance = g.node("Add", [
    square(g.node("Div", [g.node("Sub", [row(xs), faceAt(0)]), faceAt(2)])),
    square(g.node("Div", [g.node("Sub", [column(ys), faceAt(1)]), faceAt(3)])),
  ]);
  const keep = g.node("Clip", [
    g.node("Mul", [g.node("Sub", [faceDistance, g.floats([1], [])]), g.floats([NECKLINE_SHARPNESS], [])]),
    g.floats([0], []),
    g.floats([1], []),
  ]);
  // No spill: nothing of the garment outside the dilated silhouette, unless the fit asks for it.
  const silhouette = g.node("Cast", [g.node("GreaterOrEqual", [mask, g.floats([0.5], [])])], { to: { i: 1 } });
  const k = 2 * SILHOUETTE_MARGIN + 1;
  const dilated = g.node("MaxPool", [silhouette], {
    kernel_shape: { ints: [k, k] },
    pads: { ints: [SILHOUETTE_MARGIN, SILHOUETTE_MARGIN, SILHOUETTE_MARGIN, SILHOUETTE_MARGIN] },
  });
  const allowed = g.node("Max", [dilated, g.node("Sub", [g.floats([1], []), param(PARAMS.spillClip)])]);
  const hidden = g.node("Mul", [keep, behindFront]);
  const alphaRaw = g.node("Mul", [g.node("Mul", [channels(placed, 3, 4), hidden]), allowed]);
  const colourPremultiplied = g.node("Mul", [channels(placed, 0, 3), hidden]);
  const colour = g.node("Clip", [g.node("Div", [colourPremultiplied, g.node("Max", [alphaRaw, g.floats([1e-4], [])])]), g.floats([0], []), g.floats([1], [])]);

  // Edges: hard for drafts; otherwise softened inward only, so no backdrop colour bleeds out.
  const soften = (k: number) =>
    g.node("Min", [alphaRaw, g.node("AveragePool", [alphaRaw], { kernel_shape: { ints: [k, k] }, pads: { ints: [k >> 1, k >> 1, k >> 1, k >> 1] } })]);
  const alpha =
    realism === "draft"
      ? g.node("Cast", [g.node("GreaterOrEqual", [alphaRaw, g.floats([0.5], [])])], { to: { i: 1 } })
      : soften(realism === "standard" ? 3 : 5);

  // Shading (broad-shading.ts): the person's luminance under the garment, averaged in blocks,
  // blurred by the kernel (normalised by the garment's own coverage, so neither the background
  // nor the face beside it lights the garment), resized back smoothly. Nothing finer than the
  // body's folds reaches the garment, so the old clothes never show through it.
  const luminance = g.node("ReduceSum", [g.node("Mul", [person, g.floats([0.299, 0.587, 0.114], [1, 3, 1, 1])]), g.int64s([1])], { keepdims: { i: 1 } });
  const pool = (t: string) =>
    g.node("AveragePool", [t], {
      kernel_shape: { ints: [SHADING_BLOCK, SHADING_BLOCK] },
      strides: { ints: [SHADING_BLOCK, SHADING_BLOCK] },
      ceil_mode: { i: 1 },
    });
  const across = g.node("Reshape", [kernel, g.int64s([1, 1, 1, -1])]);
  const down = g.node("Reshape", [kernel, g.int64s([1, 1, -1, 1])]);
  const blur = (t: string) => g.node("Conv", [g.node("Conv", [t, across], { auto_pad: { s: "SAME_UPPER" } }), down], { auto_pad: { s: "SAME_UPPER" } });
  // Each pixel's luminance relative to the garment's mean is clamped first, so that a small bright
  // or dark patch of the old clothes (a white collar, a name tag, a black tie) lights no blob.
  const sum = (t: string) => g.node("ReduceSum", [t], { keepdims: { i: 0 } });
  const alphaTotal = g.node("Max", [sum(alpha), g.floats([1e-6], [])]);
  /** A plane's mean under the garment, weighted by its alpha. */
  const meanUnderGarment = (t: string) => g.node("Div", [sum(g.node("Mul", [t, alpha])), alphaTotal]);
  const lumMean = meanUnderGarment(luminance);
  const lumRelative = g.node("Clip", [
    g.node("Div", [luminance, g.node("Max", [lumMean, g.floats([1e-3], [])])]),
    g.floats([LUMINANCE_RANGE[0]], []),
    g.floats([LUMINANCE_RANGE[1]], []),
  ]);
  const weight = g.node("Max", [blur(pool(alpha)), g.floats([1e-3], [])]);
  const broad = g.node("Div", [blur(pool(g.node("Mul", [lumRelative, alpha]))), weight]);
  const shadingSource = g.node("Resize", [broad, "", "", planeShape], { mode: { s: "linear" } });
  const meanUnder = meanUnderGarment(shadingSource);
  const relative = g.node("Div", [shadingSource, g.node("Max", [meanUnder, g.floats([1e-3], [])])]);
  const shade = g.node("Clip", [
    g.node("Add", [g.floats([1], []), g.node("Mul", [param(PARAMS.shading), g.node("Sub", [relative, g.floats([1], [])])])]),
    g.floats([SHADE_RANGE[0]], []),
    g.floats([SHADE_RANGE[1]], []),
  ]);
  const garmentColour = g.node("Clip", [g.node("Mul", [colour, shade]), g.floats([0], []), g.floats([1], [])]);
  bytes(g.node("Concat", [garmentColour, alpha], { axis: { i: 1 } }), "garment");

  // Background: the person (and garment) stay; the rest moves toward `background` by the mix.
  const foreground = g.node("Max", [mask, alpha]);
  const behind = g.node("Mul", [param(PARAMS.backgroundMix), g.node("Sub", [g.floats([1], []), foreground])]);
  bytes(g.node("Concat", [background, behind], { axis: { i: 1 } }), "backdrop");
  bytes(foreground, "foreground");

  // A radial vignette: 1 in the centre, darker toward the corners by its strength.
  const radius2 = g.node("Add", [square(row(nx)), square(column(ny))]);
  const vignette = g.node("Sub", [g.floats([1], []), g.node("Mul", [param(PARAMS.vignette), g.node("Mul", [radius2, g.floats([0.5], [])])])]);
  bytes(g.node("Unsqueeze", [vignette, g.int64s([0, 1])]), "vignette");

  g.output("garment", "uint8", [1, "h", "w", 4]);
  g.output("backdrop", "uint8", [1, "h", "w", 4]);
  g.output("foreground", "uint8", [1, "h", "w", 1]);
  g.output("vignette", "uint8", [1, "h", "w", 1]);
  return g.encode(17);
};
