import type { RgbImage, TextBox } from "./text-detection.ts";
import { cropBatch, lineWidthFor } from "./text-recognition.ts";

/**
 * PaddleOCR's text-line direction classifier (ch_ppocr_mobile_v2.0_cls), the parts around the
 * model: lines cropped to 48 × 192 (PaddleOCR's cls_image_shape), and a page-level verdict.
 * The classifier only tells upright from upside down; a page is upside down when most lines it
 * is sure of (PaddleOCR's cls_thresh 0.9) say so.
 *
 * Runs inside the inference thread, which Node loads by stripping types: erasable syntax only.
 */
export const classifierWidth = 192;
const sureProbability = 0.9;

export const orientationBatch = (image: RgbImage, boxes: ReadonlyArray<TextBox>): Float32Array =>
  cropBatch(image, boxes, classifierWidth, (box) => Math.min(classifierWidth, lineWidthFor(box)));

/** `probabilities`: [lines, 2] softmax, class 0 upright, class 1 turned 180 degrees. */
export const pageIsUpsideDown = (probabilities: Float32Array, lines: number): boolean => {
  let upright = 0;
  let turned = 0;
  for (let n = 0; n < lines; n++) {
    const turnedProbability = probabilities[2 * n + 1] ?? 0;
    if (turnedProbability >= sureProbability) turned++;
    else if (1 - turnedProbability >= sureProbability) upright++;
  }
  return turned > upright;
};
