import ort from "onnxruntime-node";
import type { RawImage } from "../image/raw-decoding.ts";
import { resizeRaw } from "../image/raw-decoding.ts";
import { readPackagedModelFile, SELFIE_SEGMENTATION_TFLITE } from "../models/packaged-models.ts";
import { createSession, runSingle } from "../onnx/onnx-session.ts";
import { readTfliteModel } from "../onnx/tflite-model.ts";
import { tfliteToOnnx } from "../onnx/tflite-to-onnx.ts";
import { letterbox, unletterbox } from "./letterbox.ts";

/** MediaPipe's general selfie segmentation (256×256, RGB in [0, 1]), converted to ONNX at load. */
const INPUT = 256;

/**
 * Person probability in [0, 1], row-major, over the whole image at the model's resolution: the
 * image is letterboxed into the model's square (stretching it misleads the model), and the
 * padding is cut off again here, so `width`/`height` keep the image's aspect ratio.
 */
export interface ProbabilityMap {
  readonly values: Float32Array;
  readonly width: number;
  readonly height: number;
}

export interface SelfieSegmentationModel {
  readonly probabilities: (image: RawImage) => Promise<ProbabilityMap>;
}

export const loadSelfieSegmentation = async (threads: number): Promise<SelfieSegmentationModel> => {
  const onnx = tfliteToOnnx(readTfliteModel(await readPackagedModelFile(SELFIE_SEGMENTATION_TFLITE)));
  const session = await createSession(onnx, threads);
  const inputName = session.inputNames[0] ?? "input_1";
  return {
    probabilities: async (image) => {
      const box = await letterbox(image, INPUT);
      const input = new Float32Array(box.rgb.length);
      for (let i = 0; i < box.rgb.length; i++) input[i] = box.rgb[i]! / 255;
      const out = await runSingle(session, { [inputName]: new ort.Tensor("float32", input, [1, INPUT, INPUT, 3]) });
      const { width, height } = box;
      const values = unletterbox(out.data as Float32Array, INPUT, box);
      return { values, width, height };
    },
  };
};

/** Scales a probability map to an image's size as alpha bytes (0 background … 255 person). */
export const probabilitiesToAlpha = async (map: ProbabilityMap, width: number, height: number): Promise<Uint8Array> => {
  const bytes = Uint8Array.from(map.values, (p) => Math.round(Math.min(1, Math.max(0, p)) * 255));
  return resizeRaw(bytes, map.width, map.height, 1, { width, height });
};
