import type { Raster } from "../image/raster.ts";
/**
 * Measures the text lines of a page before any engine reads it, by the projection-profile
 * method: project the ink onto the vertical axis along candidate angles; along the true line
 * direction the profile is sharpest (ink piles into line bins, gaps stay empty), which the sum
 * of squared bin counts rewards. That gives the tilt (Tesseract's own layout analysis loses
 * whole pages at a tilt of a few degrees, and its deskew relies on that same analysis) and,
 * from the runs of inked bins at that angle, the height of a line (engines read small text
 * better enlarged).
 */
export type GreyImage = Raster<1>;

/** Otsu's threshold: the grey level that best splits the histogram into two classes. */
const otsuThreshold = (pixels: Uint8Array): number => {
  const histogram = new Array<number>(256).fill(0);
  for (const value of pixels) histogram[value] = (histogram[value] ?? 0) + 1;
  const total = pixels.length;
  const sum = histogram.reduce((acc, count, value) => acc + count * value, 0);
  let backgroundWeight = 0;
  let backgroundSum = 0;
  let best = { threshold: 127, variance: -1 };
  for (let t = 0; t < 256; t++) {
    backgroundWeight += histogram[t] ?? 0;
    if (backgroundWeight === 0) continue;
    const foregroundWeight = total - backgroundWeight;
    if (foregroundWeight === 0) break;
    backgroundSum += t * (histogram[t] ?? 0);
    const meanBackground = backgroundSum / backgroundWeight;
    const meanForeground = (sum - backgroundSum) / foregroundWeight;
    const variance = backgroundWeight * foregroundWeight * (meanBackground - meanForeground) ** 2;
    if (variance > best.variance) best = { threshold: t, variance };
  }
  return best.threshold;
};

/** Ink pixel coordinates: the minority side of Otsu's split, so light-on-dark text works too. */
const inkOf = (image: GreyImage): { xs: Float64Array; ys: Float64Array } => {
  const threshold = otsuThreshold(image.data);
  let dark = 0;
  for (const value of image.data) if (value <= threshold) dark++;
  const inkIsDark = dark <= image.data.length / 2;
  const count = inkIsDark ? dark : image.data.length - dark;
  const xs = new Float64Array(count);
  const ys = new Float64Array(count);
  let n = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const value = image.data[y * image.width + x] ?? 255;
      if (value <= threshold === inkIsDark) {
        xs[n] = x;
        ys[n] = y;
        n++;
      }
    }
  }
  return { xs, ys };
};

const profile = (ink: { xs: Float64Array; ys: Float64Array }, height: number, width: number, degrees: number): Float64Array => {
  const slope = Math.tan((degrees * Math.PI) / 180);
  const offset = Math.ceil(Math.abs(slope) * width);
  const bins = new Float64Array(height + 2 * offset + 1);
  for (let i = 0; i < ink.xs.length; i++) {
    const bin = Math.round((ink.ys[i] ?? 0) - (ink.xs[i] ?? 0) * slope) + offset;
    bins[bin] = (bins[bin] ?? 0) + 1;
  }
  return bins;
};

const sharpness = (bins: Float64Array) => bins.reduce((sum, count) => sum + count * count, 0);

/**
 * The runs of inked bins, shortest first: each a line's height from its ascenders to descenders.
 * Runs under 4 bins are rules (table and underline strokes), not text.
 */
const inkRuns = (bins: Float64Array): ReadonlyArray<number> => {
  const floor = 0.05 * Math.max(...bins);
  const runs: number[] = [];
  let run = 0;
  for (const count of [...bins, 0]) {
    if (count > floor) run++;
    else if (run > 0) {
      if (run >= 4) runs.push(run);
      run = 0;
    }
  }
  return runs.sort((a, b) => a - b);
};

export interface TextLines {
  /** Clockwise tilt of the lines, in degrees (rotate by its negative to straighten). */
  readonly skewDegrees: number;
  /** How much sharper the profile is at that angle than level (1 = no better). */
  readonly skewGain: number;
  /** Typical line height in the image's pixels; undefined when no lines stand out. */
  readonly lineHeight: number | undefined;
  /** Lines that stand out (0 when none): 1 for a label of one line. */
  readonly lineCount: number;
}

/** Searches ±`range` degrees, coarse then fine. Images with almost no ink report nothing. */
export const analyseTextLines = (image: GreyImage, range = 10): TextLines => {
  const ink = inkOf(image);
  if (ink.xs.length < 50) return { skewDegrees: 0, skewGain: 1, lineHeight: undefined, lineCount: 0 };
  const sharpnessAt = (degrees: number) => sharpness(profile(ink, image.height, image.width, degrees));
  const level = sharpnessAt(0);
  const search = (from: number, to: number, step: number) => {
    let best = { degrees: 0, sharpness: level };
    for (let degrees = from; degrees <= to + 1e-9; degrees += step) {
      const candidate = sharpnessAt(degrees);
      if (candidate > best.sharpness) best = { degrees, sharpness: candidate };
    }
    return best;
  };
  const coarse = search(-range, range, 0.5);
  const fine = search(coarse.degrees - 0.5, coarse.degrees + 0.5, 0.1);
  const runs = inkRuns(profile(ink, image.height, image.width, fine.degrees));
  return {
    skewDegrees: Number(fine.degrees.toFixed(1)),
    skewGain: level === 0 ? 1 : fine.sharpness / level,
    lineHeight: runs[Math.floor(runs.length / 2)],
    lineCount: runs.length,
  };
};

/**
 * Whether the image is a label of one line: one line stands out, lower than most of the image (a
 * page too dark to measure is one run as high as itself). Tesseract's page layout analysis finds
 * no text in some such labels (a Korean line, read as nothing), where read as one line it does.
 */
export const holdsOneLine = (lines: TextLines, imageHeight: number): boolean =>
  lines.lineCount === 1 && lines.lineHeight !== undefined && lines.lineHeight <= maximumLineShare * imageHeight;
const maximumLineShare = 0.75;
