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
const otsuThreshold = (histogram: Uint32Array, total: number): number => {
  let sum = 0;
  for (let value = 0; value < 256; value++) sum += value * (histogram[value] ?? 0);
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

/**
 * Ink pixel coordinates: the minority side of Otsu's split, so light-on-dark text works too.
 * Typed arrays throughout: this runs on every page read (~1 MP after the resize), in a thread
 * whose CPU the page's reading competes with.
 */
const inkOf = (image: GreyImage): { xs: Int32Array; ys: Int32Array } => {
  const { data, width, height } = image;
  const histogram = new Uint32Array(256);
  for (let i = 0; i < data.length; i++) {
    const value = data[i] ?? 0;
    histogram[value] = (histogram[value] ?? 0) + 1;
  }
  const threshold = otsuThreshold(histogram, data.length);
  let dark = 0;
  for (let value = 0; value <= threshold; value++) dark += histogram[value] ?? 0;
  const inkIsDark = dark <= data.length / 2;
  const count = inkIsDark ? dark : data.length - dark;
  const xs = new Int32Array(count);
  const ys = new Int32Array(count);
  let n = 0;
  for (let y = 0, at = 0; y < height; y++) {
    for (let x = 0; x < width; x++, at++) {
      if ((data[at] ?? 255) <= threshold === inkIsDark) {
        xs[n] = x;
        ys[n] = y;
        n++;
      }
    }
  }
  return { xs, ys };
};

const profile = (ink: { xs: Int32Array; ys: Int32Array }, height: number, width: number, degrees: number): Float64Array => {
  const slope = Math.tan((degrees * Math.PI) / 180);
  const offset = Math.ceil(Math.abs(slope) * width);
  const bins = new Float64Array(height + 2 * offset + 1);
  const { xs, ys } = ink;
  for (let i = 0; i < xs.length; i++) {
    const bin = Math.round((ys[i] ?? 0) - (xs[i] ?? 0) * slope) + offset;
    bins[bin] = (bins[bin] ?? 0) + 1;
  }
  return bins;
};

const sharpness = (bins: Float64Array) => {
  let sum = 0;
  for (let i = 0; i < bins.length; i++) sum += (bins[i] ?? 0) ** 2;
  return sum;
};

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
