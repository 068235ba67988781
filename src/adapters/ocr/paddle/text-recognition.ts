import type { RgbImage, TextBox } from "./text-detection.ts";

/**
 * PP-OCRv4 text-line recognition (SVTR-LCNet + CTC), the parts around the model: crop and
 * resize each line to 48 px high (PaddleOCR's rec_image_shape 3×48×320, wider lines keep
 * their aspect ratio), normalise to [-1, 1] in BGR order, pad a batch to its widest line,
 * then greedy CTC decoding.
 *
 * Runs inside the inference thread, which Node loads by stripping types: erasable syntax only.
 */
export const lineHeight = 48;
const minimumWidth = 320;
/** Lines wider than this (in model pixels) are squeezed rather than fed whole. */
const maximumWidth = 3200;

export const lineWidthFor = (box: TextBox): number =>
  Math.min(maximumWidth, Math.max(1, Math.ceil((lineHeight * (box.x1 - box.x0)) / Math.max(1, box.y1 - box.y0))));

/** Bilinear sample of channel `c` at (x, y), clamped to the image. */
const sample = (image: RgbImage, x: number, y: number, c: number): number => {
  const fx = Math.min(image.width - 1, Math.max(0, x));
  const fy = Math.min(image.height - 1, Math.max(0, y));
  const xa = Math.floor(fx);
  const ya = Math.floor(fy);
  const xb = Math.min(image.width - 1, xa + 1);
  const yb = Math.min(image.height - 1, ya + 1);
  const wx = fx - xa;
  const wy = fy - ya;
  const at = (px: number, py: number) => image.rgb[(py * image.width + px) * 3 + c] ?? 0;
  return (at(xa, ya) * (1 - wx) + at(xb, ya) * wx) * (1 - wy) + (at(xa, yb) * (1 - wx) + at(xb, yb) * wx) * wy;
};

/**
 * NCHW batch of crops of `image`, each resized to `lineHeight` high and `widthOf(box)` wide,
 * BGR, scaled to [-1, 1], padded with zeros (mid-grey) to `batchWidth`.
 */
export const cropBatch = (image: RgbImage, boxes: ReadonlyArray<TextBox>, batchWidth: number, widthOf: (box: TextBox) => number): Float32Array => {
  const plane = lineHeight * batchWidth;
  const data = new Float32Array(boxes.length * 3 * plane);
  boxes.forEach((box, n) => {
    const targetWidth = Math.min(batchWidth, widthOf(box));
    const scaleX = (box.x1 - box.x0) / targetWidth;
    const scaleY = (box.y1 - box.y0) / lineHeight;
    for (let y = 0; y < lineHeight; y++) {
      const sourceY = box.y0 + (y + 0.5) * scaleY - 0.5;
      for (let x = 0; x < targetWidth; x++) {
        const sourceX = box.x0 + (x + 0.5) * scaleX - 0.5;
        for (let c = 0; c < 3; c++) {
          // Channel c of the tensor is B, G, R: source channel 2 - c.
          data[n * 3 * plane + c * plane + y * batchWidth + x] = sample(image, sourceX, sourceY, 2 - c) / 127.5 - 1;
        }
      }
    }
  });
  return data;
};

/** The recogniser's batch: as wide as its widest line (at least 320 px). */
export const recognitionBatch = (image: RgbImage, boxes: ReadonlyArray<TextBox>): { data: Float32Array; width: number } => {
  const width = Math.max(minimumWidth, ...boxes.map(lineWidthFor));
  return { data: cropBatch(image, boxes, width, lineWidthFor), width };
};

export interface DecodedLine {
  readonly text: string;
  /** Mean probability of the characters kept, 0-1. */
  readonly confidence: number;
}

/**
 * Greedy CTC: the most likely class per time step, repeats collapsed, blanks dropped. Class 0
 * is the blank, 1..n the dictionary's characters, the last a space.
 */
export const decodeCtc = (probabilities: Float32Array, steps: number, classes: number, characters: ReadonlyArray<string>, line: number): DecodedLine => {
  let text = "";
  let total = 0;
  let kept = 0;
  let previous = -1;
  const offset = line * steps * classes;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bestProbability = -1;
    for (let k = 0; k < classes; k++) {
      const probability = probabilities[offset + t * classes + k] ?? 0;
      if (probability > bestProbability) {
        best = k;
        bestProbability = probability;
      }
    }
    if (best !== 0 && best !== previous) {
      text += characters[best - 1] ?? " ";
      total += bestProbability;
      kept++;
    }
    previous = best;
  }
  return { text: text.trim(), confidence: kept === 0 ? 0 : total / kept };
};
