import type { TextLines } from "./text-line-analysis.ts";

/**
 * How both engines straighten and enlarge a page before reading it, from its text lines as
 * measured (measureTextLines in ocr-image-preparation.ts): one tilt rule, and one enlargement
 * formula to which each engine gives its own line heights and pixel budget.
 */
/** Tilt (degrees) below which the engines cope on their own, and the profile gain that makes a tilt believable. */
const minimumSkew = 1;
const minimumSkewGain = 1.2;
/** The most a page is enlarged. */
const maximumScale = 3;

/** The clockwise turn (degrees) that straightens the page's lines; 0 when their tilt is too small or not believable. */
export const straighteningRotation = (lines: TextLines): number =>
  Math.abs(lines.skewDegrees) >= minimumSkew && lines.skewGain >= minimumSkewGain ? -lines.skewDegrees : 0;

/** An engine's terms for enlarging small text. */
export interface Upscaling {
  /** Lines lower than this (px, as measured on the page) are enlarged, */
  readonly belowLineHeight: number;
  /** towards this height, */
  readonly targetLineHeight: number;
  /** while the enlarged page holds at most this many pixels. */
  readonly maximumPixels: number;
}

/**
 * The enlargement for a page of `size` whose lines are `lineHeight` px high: 1 for lines high
 * enough, else towards the target height, at most `maximumScale` and the pixel budget, and never
 * below 1; in hundredths.
 */
export const upscaleFactor = (size: { readonly width: number; readonly height: number }, lineHeight: number | undefined, upscaling: Upscaling): number => {
  const pixelBound = Math.sqrt(upscaling.maximumPixels / (size.width * size.height));
  return lineHeight !== undefined && lineHeight < upscaling.belowLineHeight
    ? Math.max(1, Number(Math.min(maximumScale, pixelBound, upscaling.targetLineHeight / lineHeight).toFixed(2)))
    : 1;
};
