import type { Point } from "../../ports/engines/tryon-engine.ts";
import type { RawImage } from "../image/raw-decoding.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import { colourRange, gridColour, withinRange } from "./colour-range.ts";

/**
 * The hair that lies over the torso, which the garment goes behind: the hair model's probability,
 * ramped so that its faint readings hide nothing and its edge stays soft, between the torso's sides
 * grown by a margin and above its hip line. Hair beside the torso (hanging behind the shoulders,
 * past the body's outline) stays behind the garment's sleeves. The model also reads dark, frilled
 * or curly clothes as hair (0.9 over a black frilled top): a pixel over the torso counts as hair
 * only as far as its colour lies within the range of the hair above the shoulders, where no
 * clothes are. Computed at the hair map's resolution (512 px at most a side), in the try-on
 * thread; the composite graph scales it to the working resolution.
 */
const HAIR_RAMP = [0.35, 0.75] as const;
/** The torso's sides are grown by this share of the shoulder width, with a soft edge as wide. */
const TORSO_MARGIN = 0.08;
/** The hair above the shoulders that sets the colour range (colour-range.ts): this sure. */
const REFERENCE_HAIR = 0.8;
const RANGE_PERCENTILES = [0.02, 0.98] as const;

/** Signed distance from p to the polygon's edges `edges` (positive inside), the smallest. */
const insideDistance = (polygon: ReadonlyArray<Point>, p: Point, orientation: number, edges: ReadonlyArray<number>): number => {
  let nearest = Infinity;
  for (const i of edges) {
    const a = polygon[i]!;
    const b = polygon[(i + 1) % polygon.length]!;
    const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const d = (orientation * ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x))) / length;
    if (d < nearest) nearest = d;
  }
  return nearest;
};

/**
 * How much of each pixel of the hair map's grid is hair in front of the torso (0-1). `quad` (image-left
 * shoulder, image-right shoulder, image-right hip, image-left hip) and `shoulderWidth` are in the
 * working image's pixels.
 */
export const hairInFront = (hair: ProbabilityMap, image: RawImage, quad: ReadonlyArray<Point>, shoulderWidth: number): ProbabilityMap => {
  const sx = image.width / hair.width;
  const sy = image.height / hair.height;
  const colour = gridColour(image, hair);
  const shoulderLine = Math.min(quad[0]!.y, quad[1]!.y);
  const aboveShoulders = (i: number) => (Math.floor(i / hair.width) + 0.5) * sy < shoulderLine;
  const range = colourRange(hair.values.length, colour, (i) => hair.values[i]! >= REFERENCE_HAIR && aboveShoulders(i), RANGE_PERCENTILES);
  let area = 0;
  for (let i = 0, j = quad.length - 1; i < quad.length; j = i++) area += quad[j]!.x * quad[i]!.y - quad[i]!.x * quad[j]!.y;
  const orientation = Math.sign(area) || 1;
  const margin = TORSO_MARGIN * shoulderWidth;
  // The sides and the hip line; not the shoulder line, as hair falls over the shoulders' tops too.
  const edges = [1, 2, 3];
  const values = new Float32Array(hair.values.length);
  for (let y = 0; y < hair.height; y++)
    for (let x = 0; x < hair.width; x++) {
      const i = y * hair.width + x;
      const h = (hair.values[i]! - HAIR_RAMP[0]) / (HAIR_RAMP[1] - HAIR_RAMP[0]);
      if (h <= 0) continue;
      const d = insideDistance(quad, { x: (x + 0.5) * sx, y: (y + 0.5) * sy }, orientation, edges) + margin;
      if (d <= 0) continue;
      const fit = range === undefined ? 1 : withinRange(range, colour, i);
      values[i] = Math.min(1, h) * Math.min(1, d / margin) * fit;
    }
  return { values, width: hair.width, height: hair.height };
};
