import type { Point } from "../../ports/engines/tryon-engine.ts";
import type { RawImage } from "../image/raw-decoding.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import type { Arm } from "./arms.ts";
import type { FaceSkin } from "./face-skin.ts";
import { type Box, boxAround } from "./garment/garment-fit.ts";
import { clothesShare, type GarmentLayer, paintedBox, paintUnder, ramp, sampler, SOLID } from "./skin-paint.ts";
import type { Torso } from "./torso.ts";

/**
 * The old sleeves below the new garment's, painted as the wearer's skin: a long sleeve under a
 * T-shirt's short one, a jacket's arm under a sleeveless top. The new garment leaves the arm bare
 * from its hem down to the wrist; what the photo shows there is the arm as it was, and where that
 * is clothes, the arm is painted in the face's tone, as the neck is (neck-skin.ts).
 *
 * The arm is its axis through the seen joints (shoulder, elbow, wrist: arms.ts), and around it a
 * band as wide as a sleeve. The hem is the farthest point along the axis where the garment is solid
 * on it. Below the hem the band is read in SECTION-long pieces: a piece is a sleeve where at least
 * SLEEVED of the silhouette's pixels in it are clothes (not skin, in any light: face-skin.ts), and
 * only sleeve pieces are painted, pixel by pixel as far as each is clothes. So a bare forearm with a
 * tattoo, a watch or a bracelet, or a sleeve rolled up to the elbow, keeps its skin; hair (the hair
 * model's reading) and what lies in front (hands and what they hold) are never painted.
 * The paint is the median colour of the arms' own bare skin where enough of it shows (a forearm
 * below a rolled-up sleeve), else the face's; lit as a cylinder (darker towards the band's sides).
 * An arm whose elbow is not seen is left as it is; a wrist not seen because it lies beyond the
 * photo's edge continues the upper arm's line out of the photo.
 * Not told apart, as at the neck: a warm-coloured sleeve (tan, rust, pink) reads as skin and stays.
 */

/** The band's half width around the axis, in shares of the shoulder width (a sleeve is wider than the arm drawn in arms.ts). */
const UPPER_ARM_BAND = 0.16;
const FOREARM_BAND = 0.13;
/**
 * On the upper arm's side away from the torso, the band reaches this far: a loose sleeve hangs wider
 * than the arm there (the pushed-up sleeve bunched at the elbow of straps-across-torso.jpg showed a
 * white strip beside the paint). Towards the torso it stays UPPER_ARM_BAND: what lies there is the
 * torso's side, not the arm's.
 */
const OUTER_BAND = 0.26;
/** The garment counts as reaching down the arm only where it is solid this close to the axis (shares of the band's half width). */
const ON_AXIS = 0.35;
/** Pieces along the arm (shares of the shoulder width), each painted only when this share of it is clothes. */
const SECTION = 0.08;
const SLEEVED = 0.5;
/** Lit as a cylinder: the tone at the axis, and at the band's side. */
const AXIS_SHADE = 0.95;
const SIDE_SHADE = 0.78;
/** The band's inner sides fade out over this share of its half width (towards the torso, where no outline ends it). */
const BAND_FADE = 0.15;
/**
 * Skin is warm in any light: a pixel whose warmth (R−B as a share of R+G+B) is under this share of
 * the face tone's counts as clothes, whatever the face's range says. The range is read off the face's
 * middle, where white teeth and a smile's highlights widen it to take in a white sleeve in warm light
 * (the striped shirt of straps-across-torso.jpg: warmth −0.05, the face's tone 0.2, a bare forearm
 * 0.12-0.24).
 */
const WARMTH_FLOOR = 0.5;
/** The arms' bare skin gives the paint's tone where at least this many pixels of it show (in squared shoulder widths). */
const BARE_ENOUGH = 0.03;
/** A forearm continued past an unseen wrist is this long (shares of the upper arm's length). */
const FOREARM_LENGTH = 0.9;

interface Segment {
  readonly a: Point;
  readonly b: Point;
  readonly band: number;
  /** The band's half width on the side away from the torso, where a loose sleeve hangs wider than the arm. */
  readonly outer: number;
  readonly outward: Point;
  /** Arc length along the axis at `a`. */
  readonly from: number;
}

/** The arm's axis as segments, or undefined when its elbow is not seen. */
const axisOf = (arm: Arm, shoulderWidth: number, width: number, height: number): ReadonlyArray<Segment> | undefined => {
  const { shoulder, elbow } = arm;
  if (elbow === undefined) return undefined;
  const upperLength = Math.hypot(elbow.x - shoulder.x, elbow.y - shoulder.y);
  const upper: Segment = { a: shoulder, b: elbow, band: UPPER_ARM_BAND * shoulderWidth, outer: OUTER_BAND * shoulderWidth, outward: arm.outward, from: 0 };
  const beyond = { x: elbow.x + arm.upper.x * FOREARM_LENGTH * upperLength, y: elbow.y + arm.upper.y * FOREARM_LENGTH * upperLength };
  const outside = beyond.x < 0 || beyond.y < 0 || beyond.x > width || beyond.y > height;
  const wrist = arm.wrist ?? (outside ? beyond : undefined);
  const forearm = FOREARM_BAND * shoulderWidth;
  return wrist === undefined ? [upper] : [upper, { a: elbow, b: wrist, band: forearm, outer: forearm, outward: arm.outward, from: upperLength }];
};

/** The nearest point of the axis to p: its distance, the arc length there, and the band's half width. */
const nearest = (axis: ReadonlyArray<Segment>, x: number, y: number) => {
  let best = { distance: Infinity, along: 0, band: 0 };
  for (const { a, b, band: inner, outer, outward, from } of axis) {
    const abx = b.x - a.x;
    const aby = b.y - a.y;
    const length = Math.hypot(abx, aby);
    const t = length === 0 ? 0 : Math.min(1, Math.max(0, ((x - a.x) * abx + (y - a.y) * aby) / (length * length)));
    const [dx, dy] = [x - a.x - t * abx, y - a.y - t * aby];
    const distance = Math.hypot(dx, dy);
    // Wider only alongside the segment: past its ends the band rounds off at the arm's own width.
    const band = t > 0 && t < 1 && dx * outward.x + dy * outward.y > 0 ? outer : inner;
    if (distance / band < best.distance / Math.max(best.band, 1e-9)) best = { distance, along: from + t * length, band };
  }
  return best;
};

/**
 * Paints into `garment` (the composite's garment layer, straight RGBA at the working resolution)
 * and returns the box of what it painted, or undefined when nothing was.
 */
export const paintArmSkin = (
  garment: GarmentLayer,
  image: RawImage,
  /** The silhouette, the hair model's reading, and what lies in front of the torso (hair, hands and what they hold). */
  layers: { readonly person: ProbabilityMap; readonly hair: ProbabilityMap; readonly front: ProbabilityMap },
  arms: ReadonlyArray<Arm>,
  torso: Torso,
  skin: FaceSkin,
): Box | undefined => {
  const { rgba, width, height } = garment;
  const person = sampler(layers.person, width, height);
  const hair = sampler(layers.hair, width, height);
  const front = sampler(layers.front, width, height);
  const { data, channels } = image;
  const section = Math.max(2, SECTION * torso.shoulderWidth);
  const [tr, tg, tb] = skin.tone;
  const warmthFloor = (WARMTH_FLOOR * (tr - tb)) / Math.max(1, tr + tg + tb);
  const clothesAt = (x: number, y: number) => {
    const at = (y * width + x) * channels;
    const [r, g, b] = [data[at]!, data[at + 1]!, data[at + 2]!];
    return (r - b) / Math.max(1, r + g + b) < warmthFloor ? 1 : clothesShare(skin, r, g, b);
  };
  // Histograms of the bare skin's R, G and B: its median without keeping every pixel.
  const bare = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)] as const;
  let bareCount = 0;

  // First, each arm read: its hem, and for each piece along it how much of its silhouette is clothes.
  const readings = arms.flatMap((arm) => {
    const axis = axisOf(arm, torso.shoulderWidth, width, height);
    if (axis === undefined) return [];
    const reach = Math.max(...axis.map((s) => Math.max(s.band, s.outer)));
    const points = axis.flatMap((s) => [s.a, s.b]);
    const box = {
      left: Math.max(0, Math.floor(Math.min(...points.map((p) => p.x)) - reach)),
      right: Math.min(width, Math.ceil(Math.max(...points.map((p) => p.x)) + reach)),
      top: Math.max(0, Math.floor(Math.min(...points.map((p) => p.y)) - reach)),
      bottom: Math.min(height, Math.ceil(Math.max(...points.map((p) => p.y)) + reach)),
    };
    if (box.right <= box.left || box.bottom <= box.top) return [];
    const last = axis.at(-1)!;
    const pieces = Math.ceil((last.from + Math.hypot(last.b.x - last.a.x, last.b.y - last.a.y)) / section) + 1;
    const seen = new Float64Array(pieces);
    const clothed = new Float64Array(pieces);
    let hem = -Infinity;
    for (let y = box.top; y < box.bottom; y++)
      for (let x = box.left; x < box.right; x++) {
        const near = nearest(axis, x + 0.5, y + 0.5);
        if (near.distance > near.band) continue;
        if (rgba[4 * (y * width + x) + 3]! >= SOLID) {
          if (near.distance <= ON_AXIS * near.band) hem = Math.max(hem, near.along);
          continue;
        }
        if (person(x, y) < 0.5 || hair(x, y) >= 0.5 || front(x, y) >= 0.5) continue;
        const piece = Math.floor(near.along / section);
        const clothes = clothesAt(x, y);
        seen[piece]! += 1;
        clothed[piece]! += clothes >= 0.5 ? 1 : 0;
        if (clothes === 0) {
          bareCount++;
          for (let c = 0; c < 3; c++) bare[c]![data[(y * width + x) * channels + c]!]! += 1;
        }
      }
    return [{ axis, box, seen, clothed, hem }];
  });

  // The arms' own bare skin, where enough of it shows, is the paint's tone: the face's is lit otherwise,
  // and darkened by what its middle holds (glasses, a smile's shadows).
  const median = (histogram: Uint32Array) => {
    let below = 0;
    let level = 0;
    while (level < 255 && (below += histogram[level]!) <= bareCount / 2) level++;
    return level;
  };
  const tone = bareCount >= BARE_ENOUGH * torso.shoulderWidth ** 2 ? ([median(bare[0]), median(bare[1]), median(bare[2])] as const) : skin.tone;

  // Then, below each hem, the sleeve pieces painted where they are clothes.
  let painted: Box | undefined;
  for (const { axis, box: within, seen, clothed, hem } of readings) {
    const box = paintedBox(width, height);
    for (let y = within.top; y < within.bottom; y++)
      for (let x = within.left; x < within.right; x++) {
        const near = nearest(axis, x + 0.5, y + 0.5);
        const piece = Math.floor(near.along / section);
        if (near.distance > near.band || near.along <= hem || seen[piece] === 0 || clothed[piece]! < SLEEVED * seen[piece]!) continue;
        const i = y * width + x;
        if (rgba[4 * i + 3]! >= SOLID) continue;
        const hidden = Math.max(hair(x, y), front(x, y));
        const body = ramp(person(x, y), 0.3, 0.7);
        const paint = body * (1 - hidden) * clothesAt(x, y) * ramp(near.band - near.distance, 0, BAND_FADE * near.band);
        if (paint <= 0) continue;
        const shade = AXIS_SHADE - (AXIS_SHADE - SIDE_SHADE) * (near.distance / near.band) ** 2;
        paintUnder(garment, i, tone, shade, paint);
        box.add(x, y);
      }
    painted = boxAround([painted, box.box()]);
  }
  return painted;
};
