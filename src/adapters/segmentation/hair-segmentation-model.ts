import ort from "onnxruntime-node";
import type { RawImage } from "../image/raw-decoding.ts";
import { HAIR_SEGMENTATION_TFLITE, readRepositoryModelFile } from "../models/repository-models.ts";
import { createSession, runSingle } from "../onnx/onnx-session.ts";
import { readTfliteModel } from "../onnx/tflite-model.ts";
import { tfliteToOnnx } from "../onnx/tflite-to-onnx.ts";
import { letterbox, unletterbox } from "./letterbox.ts";
import type { ProbabilityMap } from "./selfie-segmentation-model.ts";

/**
 * MediaPipe's hair segmentation, converted to ONNX at load. Its input is 512×512 RGB in [0, 1]
 * plus a fourth channel, the previous video frame's mask: zeros for a single photo. Its output is
 * two logits a pixel (background, hair).
 */
const INPUT = 512;

export interface HairSegmentationModel {
  /** Hair probability in [0, 1] over the whole image, at the model's resolution (as ProbabilityMap). */
  readonly probabilities: (image: RawImage) => Promise<ProbabilityMap>;
}

export const loadHairSegmentation = async (threads: number): Promise<HairSegmentationModel> => {
  const onnx = tfliteToOnnx(readTfliteModel(await readRepositoryModelFile(HAIR_SEGMENTATION_TFLITE)));
  const session = await createSession(onnx, threads);
  const inputName = session.inputNames[0] ?? "input_1";
  return {
    probabilities: async (image) => {
      const box = await letterbox(image, INPUT);
      const n = INPUT * INPUT;
      const input = new Float32Array(4 * n);
      for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) input[4 * i + c] = box.rgb[3 * i + c]! / 255;
      const out = await runSingle(session, { [inputName]: new ort.Tensor("float32", input, [1, INPUT, INPUT, 4]) });
      const logits = out.data as Float32Array;
      // A softmax over the two classes: the sigmoid of their difference.
      const hair = new Float32Array(n);
      for (let i = 0; i < n; i++) hair[i] = 1 / (1 + Math.exp(logits[2 * i]! - logits[2 * i + 1]!));
      return { values: unletterbox(hair, INPUT, box), width: box.width, height: box.height };
    },
  };
};
