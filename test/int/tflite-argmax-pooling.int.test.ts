import ort from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import type { TfliteModel, TfliteTensor } from "../../src/adapters/onnx/tflite-model.ts";
import { tfliteToOnnx } from "../../src/adapters/onnx/tflite-to-onnx.ts";

/**
 * MediaPipe's MaxPoolingWithArgmax2D → MaxUnpooling2D pair (its hair model's encoder and decoder)
 * converted to ONNX MaxPool-with-indices → MaxUnpool, checked against MediaPipe's kernels
 * (mediapipe/util/tflite/operations/max_pool_argmax.cc, max_unpooling.cc) written out here: each
 * 2×2 window's first maximum (row-major, strictly greater) goes back to its own place, the rest
 * of the window to 0. No TensorFlow Lite runtime with MediaPipe's custom operators runs in Node.
 */
const params = (padding: number) => new Uint8Array(Int32Array.from([padding, 2, 2, 2, 2, 0, 0, 0]).buffer);
const activation = (name: string, shape: ReadonlyArray<number>): TfliteTensor => ({ name, shape, type: "float32", data: undefined });

const model: TfliteModel = {
  tensors: [activation("input", [1, 6, 4, 3]), activation("pooled", [1, 3, 2, 3]), activation("indices", [1, 3, 2, 3]), activation("unpooled", [1, 6, 4, 3])],
  operators: [
    { op: "MaxPoolingWithArgmax2D", inputs: [0], outputs: [1, 2], options: undefined, customOptions: params(1) },
    { op: "MaxUnpooling2D", inputs: [1, 2], outputs: [3], options: undefined, customOptions: params(2) },
  ],
  inputs: [0],
  outputs: [3],
};

/** MediaPipe's kernels on an NHWC tensor [1, h, w, c]. */
const reference = (input: Float32Array, h: number, w: number, c: number): Float32Array => {
  const out = new Float32Array(input.length);
  for (let oy = 0; oy < h / 2; oy++)
    for (let ox = 0; ox < w / 2; ox++)
      for (let ch = 0; ch < c; ch++) {
        let best = -Infinity;
        let at = 0;
        for (let fy = 0; fy < 2; fy++)
          for (let fx = 0; fx < 2; fx++) {
            const i = ((2 * oy + fy) * w + 2 * ox + fx) * c + ch;
            if (input[i]! > best) [best, at] = [input[i]!, i];
          }
        out[at] = best;
      }
  return out;
};

describe("MediaPipe's argmax pooling, converted to ONNX", () => {
  it("unpools every maximum to MediaPipe's place, ties to the first, the rest to 0", async () => {
    const session = await ort.InferenceSession.create(tfliteToOnnx(model));
    // Small integers: ties within a window are common, and the first one must win.
    const input = Float32Array.from({ length: 6 * 4 * 3 }, (_, i) => (i * 7919) % 5);
    const out = await session.run({ input: new ort.Tensor("float32", input, [1, 6, 4, 3]) });
    expect(Array.from(out["unpooled"]!.data as Float32Array)).toEqual(Array.from(reference(input, 6, 4, 3)));
  });

  it("refuses an unpooling whose indices come from a pool of another shape", () => {
    const mismatched: TfliteModel = { ...model, tensors: [...model.tensors.slice(0, 3), activation("unpooled", [1, 8, 4, 3])] };
    expect(() => tfliteToOnnx(mismatched)).toThrow(/MaxUnpooling2D/);
  });
});
