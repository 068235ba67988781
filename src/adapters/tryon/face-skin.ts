import type { RawImage } from "../image/raw-decoding.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import { type ColourRange, colourSamples, gridColour } from "./colour-range.ts";
import type { Ellipse } from "./torso.ts";

/** The face's middle (shares of its ellipse's radii) samples the skin, where no hair lies. */
const FACE_SAMPLE = 0.35;
const FACE_HAIR = 0.3;
const SKIN_PERCENTILES = [0.2, 0.8] as const;
/** The chromaticity's range: these percentiles of the face's, widened by CHROMA_SLACK; a shadow on skin is warmer by up to SHADOW_WARMTH. */
const CHROMA_PERCENTILES = [0.05, 0.95] as const;
const CHROMA_SLACK = 0.02;
const SHADOW_WARMTH = 0.05;
/** Darker than this share of the face's median brightness, a pixel's chromaticity is mostly noise. */
const MIN_BRIGHTNESS = 0.25;

export interface FaceSkin {
  /** What counts as this person's skin in light like the face's (colour-range.ts). */
  readonly range: ColourRange;
  /** Its typical colour (R, G, B medians). */
  readonly tone: readonly [number, number, number];
  /**
   * Skin in any light: a pixel's chromaticity (its warmth R−B and its G, as shares of R+G+B), which
   * a shadow leaves almost as it is, within the face's; false for pixels too dark to tell. A grey,
   * white or black garment has next to no warmth; skin has some in any light.
   */
  readonly inAnyLight: (r: number, g: number, b: number) => boolean;
}

/**
 * The wearer's skin, read off the middle of the face on the hair map's grid (cells the hair model
 * calls hair are left out: a fringe, a beard), or undefined when too little of the face is seen.
 */
export const faceSkin = (hair: ProbabilityMap, image: RawImage, face: Ellipse): FaceSkin | undefined => {
  const { width } = hair;
  const sx = image.width / width;
  const sy = image.height / hair.height;
  const colour = gridColour(image, hair);
  const inFaceMiddle = (i: number) =>
    (((i % width) + 0.5) * sx - face.cx) ** 2 / (FACE_SAMPLE * face.rx) ** 2 +
      ((Math.floor(i / width) + 0.5) * sy - face.cy) ** 2 / (FACE_SAMPLE * face.ry) ** 2 <=
    1;
  const sample = (i: number) => hair.values[i]! < FACE_HAIR && inFaceMiddle(i);
  const samples = colourSamples(hair.values.length, colour, sample);
  if (samples === undefined) return undefined;
  // Warmth and green share, on the same cells: every cell sampled, the face's middle is small on the
  // grid, so only the rows and columns of its box are visited.
  const warmth: Array<number> = [];
  const green: Array<number> = [];
  const brightness: Array<number> = [];
  const [left, right] = [(face.cx - FACE_SAMPLE * face.rx) / sx, (face.cx + FACE_SAMPLE * face.rx) / sx];
  const [top, bottom] = [(face.cy - FACE_SAMPLE * face.ry) / sy, (face.cy + FACE_SAMPLE * face.ry) / sy];
  for (let y = Math.max(0, Math.floor(top)); y < Math.min(hair.height, Math.ceil(bottom)); y++)
    for (let x = Math.max(0, Math.floor(left)); x < Math.min(width, Math.ceil(right)); x++) {
      const i = y * width + x;
      if (!sample(i)) continue;
      const sum = colour(i, 0) + colour(i, 1) + colour(i, 2);
      warmth.push(colour(i, 4) / Math.max(1, sum));
      green.push(colour(i, 1) / Math.max(1, sum));
      brightness.push(sum);
    }
  for (const values of [warmth, green, brightness]) values.sort((a, b) => a - b);
  const percentile = (values: ReadonlyArray<number>, q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  const [wLow, wHigh, gLow, gHigh] = [
    percentile(warmth, CHROMA_PERCENTILES[0]) - CHROMA_SLACK,
    percentile(warmth, CHROMA_PERCENTILES[1]) + CHROMA_SLACK,
    percentile(green, CHROMA_PERCENTILES[0]) - CHROMA_SLACK,
    percentile(green, CHROMA_PERCENTILES[1]) + CHROMA_SLACK,
  ];
  const darkest = MIN_BRIGHTNESS * percentile(brightness, 0.5);
  const inAnyLight = (r: number, g: number, b: number) => {
    const sum = r + g + b;
    if (sum < darkest) return false;
    const warm = (r - b) / sum;
    const gs = g / sum;
    return warm >= wLow && warm <= wHigh + SHADOW_WARMTH && gs >= gLow && gs <= gHigh;
  };
  return { range: samples.range(SKIN_PERCENTILES), tone: samples.median(), inAnyLight };
};
