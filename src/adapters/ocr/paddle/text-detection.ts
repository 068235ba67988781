/**
 * PP-OCRv4 text detection (DBNet), the parts around the model: input normalisation and the
 * "differentiable binarisation" post-processing that turns the probability map into line
 * boxes. Follows PaddleOCR's DetResizeForTest / NormalizeImage / DBPostProcess with its
 * defaults (threshold 0.3, box threshold 0.6, unclip ratio 1.5), with axis-aligned boxes: pages
 * are straightened before they get here.
 *
 * Runs inside the inference thread, which Node loads by stripping types: erasable syntax only.
 */
export interface RgbImage {
  readonly width: number;
  readonly height: number;
  /** RGB, row-major. */
  readonly rgb: Uint8Array;
}

export interface TextBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  readonly score: number;
}

/** Longest side the detector sees (PaddleOCR's det_limit_side_len); sides are multiples of 32. */
export const detectionLimit = 960;

/** Size the image is resized to before detection. Only shrinks; small pages keep their size. */
export const detectionSize = (width: number, height: number): { width: number; height: number } => {
  const ratio = Math.max(width, height) > detectionLimit ? detectionLimit / Math.max(width, height) : 1;
  const round32 = (side: number) => Math.max(32, Math.round((side * ratio) / 32) * 32);
  return { width: round32(width), height: round32(height) };
};

// ImageNet statistics, applied in BGR order as PaddleOCR reads images with OpenCV.
const mean = [0.485, 0.456, 0.406] as const;
const std = [0.229, 0.224, 0.225] as const;

/** CHW float tensor data, channels B, G, R. */
export const detectionTensor = (image: RgbImage): Float32Array => {
  const plane = image.width * image.height;
  const data = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) {
      const value = (image.rgb[i * 3 + (2 - c)] ?? 0) / 255;
      data[c * plane + i] = (value - (mean[c] ?? 0)) / (std[c] ?? 1);
    }
  }
  return data;
};

export interface DetectionOptions {
  readonly threshold: number;
  readonly boxThreshold: number;
  readonly unclipRatio: number;
  readonly minSize: number;
}

export const defaultDetectionOptions: DetectionOptions = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5, minSize: 3 };

/**
 * Connected regions of the thresholded map (8-connected), each scored by the mean probability
 * inside its box and grown by DB's unclip distance (area × ratio / perimeter), since the model
 * is trained to predict shrunken text kernels. Boxes are in the map's pixels.
 */
export const boxesFromProbabilities = (
  probabilities: Float32Array,
  width: number,
  height: number,
  options: DetectionOptions = defaultDetectionOptions,
): TextBox[] => {
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const boxes: TextBox[] = [];
  for (let start = 0; start < width * height; start++) {
    if (seen[start] === 1 || (probabilities[start] ?? 0) <= options.threshold) continue;
    let x0 = width;
    let y0 = height;
    let x1 = 0;
    let y1 = 0;
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    while (top > 0) {
      const index = stack[--top] ?? 0;
      const x = index % width;
      const y = (index - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const next = ny * width + nx;
          if (seen[next] === 1 || (probabilities[next] ?? 0) <= options.threshold) continue;
          seen[next] = 1;
          stack[top++] = next;
        }
      }
    }
    const boxWidth = x1 - x0 + 1;
    const boxHeight = y1 - y0 + 1;
    if (Math.min(boxWidth, boxHeight) < options.minSize) continue;
    let sum = 0;
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) sum += probabilities[y * width + x] ?? 0;
    const score = sum / (boxWidth * boxHeight);
    if (score < options.boxThreshold) continue;
    const distance = (boxWidth * boxHeight * options.unclipRatio) / (2 * (boxWidth + boxHeight));
    const grown = { x0: x0 - distance, y0: y0 - distance, x1: x1 + 1 + distance, y1: y1 + 1 + distance };
    if (Math.min(grown.x1 - grown.x0, grown.y1 - grown.y0) < options.minSize + 2) continue;
    boxes.push({
      x0: Math.max(0, grown.x0),
      y0: Math.max(0, grown.y0),
      x1: Math.min(width, grown.x1),
      y1: Math.min(height, grown.y1),
      score,
    });
  }
  return boxes;
};
