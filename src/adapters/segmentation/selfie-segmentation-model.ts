import ort from "onnxruntime-node";
import type { RawImage } from "../imaging/raw-image.ts";
import { resizeRaw } from "../imaging/raw-image.ts";
import { readPackagedModelFile, SELFIE_SEGMENTATION_TFLITE } from "../models/packaged-models.ts";
import { createSession, runSingle } from "../onnx/onnx-session.ts";
import { readTfliteModel } from "../onnx/tflite-model.ts";
import { tfliteToOnnx } from "../onnx/tflite-to-onnx.ts";

/** MediaPipe's general selfie segmentation (256×256, RGB in [0, 1]), converted to ONNX at load. */
export const SEGMENTATION_SIZE = 256;

/** Person probability in [0, 1], SEGMENTATION_SIZE² values, row-major, over the whole (stretched) image. */
export type ProbabilityMap = Float32Array;

export interface SelfieSegmentationModel {
  readonly probabilities: (image: RawImage) => Promise<ProbabilityMap>;
}

export const loadSelfieSegmentation = async (threads: number): Promise<SelfieSegmentationModel> => {
  const onnx = tfliteToOnnx(readTfliteModel(await readPackagedModelFile(SELFIE_SEGMENTATION_TFLITE)));
  const session = await createSession(onnx, threads);
  const inputName = session.inputNames[0] ?? "input_1";
  return {
    probabilities: async (image) => {
      const small = await resizeRaw(image.data, image.width, image.height, image.channels, { width: SEGMENTATION_SIZE, height: SEGMENTATION_SIZE });
      const pixels = SEGMENTATION_SIZE * SEGMENTATION_SIZE;
      const input = new Float32Array(pixels * 3);
      for (let i = 0; i < pixels; i++)
        for (let c = 0; c < 3; c++) input[3 * i + c] = small[image.channels * i + c]! / 255;
      const out = await runSingle(session, { [inputName]: new ort.Tensor("float32", input, [1, SEGMENTATION_SIZE, SEGMENTATION_SIZE, 3]) });
      return out.data as Float32Array;
    },
  };
};

/** Scales a probability map to an image's size as alpha bytes (0 background … 255 person). */
export const probabilitiesToAlpha = async (map: ProbabilityMap, width: number, height: number): Promise<Uint8Array> => {
  const bytes = Uint8Array.from(map, (p) => Math.round(Math.min(1, Math.max(0, p)) * 255));
  return resizeRaw(bytes, SEGMENTATION_SIZE, SEGMENTATION_SIZE, 1, { width, height });
};
