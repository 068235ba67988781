import ort from "onnxruntime-node";
import type { RawImage } from "../../image/raw-decoding.ts";
import { f32 } from "../planar-tensors.ts";
import type { Box, PartFit } from "./garment-fit.ts";

const LATTICE_STEP = 4;

/**
 * One part of the garment, warped into its box: the part's pixels (premultiplied RGBA, planar,
 * cropped to the part) are sampled where its spline, evaluated every LATTICE_STEP pixels (corners
 * included) and resized in the graph, says.
 */
export const warpPart = async (
  warp: ort.InferenceSession,
  clothing: RawImage,
  labels: Uint8Array,
  label: number,
  bounds: Box,
  fit: PartFit,
): Promise<Float32Array> => {
  const left = Math.max(0, bounds.left - 1);
  const top = Math.max(0, bounds.top - 1);
  const cw = Math.min(clothing.width, bounds.right + 1) - left;
  const ch = Math.min(clothing.height, bounds.bottom + 1) - top;
  const n = cw * ch;
  const garment = new Float32Array(4 * n);
  const { data, channels } = clothing;
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) {
      const s = (y + top) * clothing.width + x + left;
      if (labels[s] !== label) continue;
      const i = y * cw + x;
      const a = channels === 4 ? data[4 * s + 3]! / 255 : 1;
      for (let c = 0; c < 3; c++) garment[c * n + i] = (data[channels * s + c]! / 255) * a;
      garment[3 * n + i] = a;
    }
  const { box } = fit;
  const boxWidth = box.right - box.left;
  const boxHeight = box.bottom - box.top;
  const lattice = (from: number, count: number, origin: number) => {
    const steps = Math.ceil((count - 1) / LATTICE_STEP);
    return Float32Array.from({ length: steps + 1 }, (_, i) => (from + 0.5 + (i * (count - 1)) / steps - origin) / fit.scale);
  };
  const xs = lattice(box.left, boxWidth, fit.origin.x);
  const ys = lattice(box.top, boxHeight, fit.origin.y);
  const out = await warp.run({
    garment: f32(garment, [1, 4, ch, cw]),
    xs: f32(xs, [xs.length]),
    ys: f32(ys, [ys.length]),
    size: new ort.Tensor("int64", BigInt64Array.from([1n, 2n, BigInt(boxHeight), BigInt(boxWidth)]), [4]),
    controls: f32(Float32Array.from(fit.backward.controls.flatMap((p) => [p.x, p.y])), [fit.backward.controls.length, 2]),
    weights: f32(Float32Array.from(fit.backward.weights.flat()), [fit.backward.weights.length, 2]),
    affine: f32(Float32Array.from(fit.backward.affine.flat()), [3, 2]),
    // Garment pixels → GridSample's [-1, 1] over the crop.
    toGrid: f32(Float32Array.from([2 / cw, 2 / ch, -1 - (2 * left) / cw, -1 - (2 * top) / ch]), [2, 2]),
  });
  return out["warped"]!.data as Float32Array;
};
