import { OnnxGraph } from "../../onnx/onnx-graph.ts";

/**
 * The garment warp as an ONNX graph: a thin-plate-spline field (each output pixel's position in
 * the garment image), then GridSample of the garment there. The field is smooth, so it is
 * evaluated on a coarse lattice and resized (corners aligned) to the output box.
 *
 * Inputs
 * - garment [1, 4, Hg, Wg]: premultiplied RGBA in [0, 1]
 * - xs [Wc], ys [Hc]: the lattice, evenly spaced from the box's first to its last pixel centre,
 *   in the spline's (normalised) frame
 * - size [4]: 1, 2, Hb, Wb: the output box
 * - controls [N, 2], weights [N, 2], affine [3, 2]: the spline, mapping output → garment pixels
 * - toGrid [2, 2]: rows (scale, offset) turning garment pixels into GridSample's [-1, 1] frame
 * Output: warped [1, 4, Hb, Wb], zero (transparent) outside the garment image.
 */
export const buildWarpGraph = (): Uint8Array => {
  const g = new OnnxGraph();
  const garment = g.input("garment", "float32", [1, 4, "hg", "wg"]);
  const xs = g.input("xs", "float32", ["wb"]);
  const ys = g.input("ys", "float32", ["hb"]);
  const controls = g.input("controls", "float32", ["n", 2]);
  const weights = g.input("weights", "float32", ["n", 2]);
  const affine = g.input("affine", "float32", [3, 2]);
  const toGrid = g.input("toGrid", "float32", [2, 2]);
  const boxSize = g.input("size", "int64", [4]);

  const size = g.node("Concat", [g.node("Shape", [ys]), g.node("Shape", [xs])], { axis: { i: 0 } });
  const x = g.node("Expand", [g.node("Unsqueeze", [xs, g.int64s([0])]), size]);
  const y = g.node("Expand", [g.node("Unsqueeze", [ys, g.int64s([1])]), size]);
  const last = g.int64s([-1]);
  // Points [Hb, Wb, 2] and their offsets to every control point [Hb, Wb, N, 2].
  const points = g.node("Concat", [g.node("Unsqueeze", [x, last]), g.node("Unsqueeze", [y, last])], { axis: { i: -1 } });
  const offsets = g.node("Sub", [g.node("Unsqueeze", [points, g.int64s([2])]), controls]);
  const r2 = g.node("ReduceSum", [g.node("Mul", [offsets, offsets]), last], { keepdims: { i: 0 } });
  // U(r) = r²·log r², with U(0) = 0 (the epsilon keeps log finite; r² = 0 still gives 0).
  const kernel = g.node("Mul", [r2, g.node("Log", [g.node("Add", [r2, g.floats([1e-20], [])])])]);
  const bent = g.node("MatMul", [kernel, weights]);
  const ones = g.node("Expand", [g.floats([1], [1, 1, 1]), g.node("Concat", [size, g.int64s([1])], { axis: { i: 0 } })]);
  const flat = g.node("MatMul", [g.node("Concat", [ones, points], { axis: { i: -1 } }), affine]);
  const garmentPixels = g.node("Add", [bent, flat]);
  const [scale, offset] = g.nodeOutputs("Split", [toGrid, g.int64s([1, 1])], { axis: { i: 0 } }, 2) as [string, string];
  const coarse = g.node("Add", [g.node("Mul", [garmentPixels, scale]), offset]);
  // [Hc, Wc, 2] → [1, 2, Hc, Wc] → resized → [1, Hb, Wb, 2], as GridSample wants it.
  const planes = g.node("Unsqueeze", [g.node("Transpose", [coarse], { perm: { ints: [2, 0, 1] } }), g.int64s([0])]);
  const fine = g.node("Resize", [planes, "", "", boxSize], { mode: { s: "linear" }, coordinate_transformation_mode: { s: "align_corners" } });
  const grid = g.node("Transpose", [fine], { perm: { ints: [0, 2, 3, 1] } });
  g.node("GridSample", [garment, grid], { mode: { s: "bilinear" }, padding_mode: { s: "zeros" }, align_corners: { i: 0 } }, ["warped"]);
  g.output("warped", "float32", [1, 4, "hb", "wb"]);
  return g.encode(17);
};
