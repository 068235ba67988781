import ort from "onnxruntime-node";
import type { RawImage } from "../image/raw-decoding.ts";

/** An interleaved 8-bit image as the graphs take it: three planes of [0, 1] floats, RGB. */
export const planar = (image: RawImage): Float32Array => {
  const n = image.width * image.height;
  const out = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[c * n + i] = image.data[image.channels * i + c]! / 255;
  return out;
};

export const f32 = (data: Float32Array, dims: ReadonlyArray<number>) => new ort.Tensor("float32", data, [...dims]);
