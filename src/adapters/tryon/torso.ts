import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { Keypoint, Point } from "../../ports/engines/tryon-engine.ts";

/**
 * Where a garment goes on a person, from MoveNet keypoints: the torso quadrilateral (shoulders
 * to hips), the direction "down" the body, and an ellipse around the face that the garment must
 * never touch.
 */
export const MIN_KEYPOINT_SCORE = 0.3;

export interface Ellipse {
  readonly cx: number;
  readonly cy: number;
  readonly rx: number;
  readonly ry: number;
}

export interface Torso {
  /** Image-left shoulder, image-right shoulder, image-right hip, image-left hip (widened to the body's outline). */
  readonly quad: readonly [Point, Point, Point, Point];
  /** Shoulder joints, image-left first. */
  readonly shoulders: readonly [Point, Point];
  readonly shoulderWidth: number;
  /** Unit vectors: across the body (image-left to right) and down it. */
  readonly across: Point;
  readonly down: Point;
  readonly face: Ellipse;
}

const add = (a: Point, b: Point, k = 1): Point => ({ x: a.x + k * b.x, y: a.y + k * b.y });
const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
const dist = (a: Point, b: Point): number => Math.hypot(a.x - b.x, a.y - b.y);

/** Body proportions, as fractions of the shoulder-joint width. */
const SHOULDER_MARGIN = 0.1; // the shoulder's outline lies outside the joint
const SHOULDER_RAISE = 0.06; // and above it
const WAIST_HALF_WIDTH = 0.54;
const TORSO_LENGTH = 1.3; // shoulder line to hip line, when the hips are not seen
/**
 * The face's ellipse, in multiples of its half width rx (0.75 of the ear-to-ear distance): its
 * height, and how far below the head keypoints' centre (about eye level) its lowest point lies.
 * The chin lies 0.8–1.1 rx below that centre (0.83 on the drawn fixture, 1.05 on the NASA
 * portrait); 1.2 covers it with a margin for a lowered head. Lower than that, the ellipse cuts
 * into the chest, where the garment's neckline belongs (it reached 1.6 rx once, and left a
 * hole in the garment a third of the shoulder width deep).
 */
const FACE_HEIGHT = 1.35;
const CHIN_DEPTH = 1.2;

const keypoint = (points: ReadonlyArray<Keypoint>, name: string): Keypoint | undefined => points.find((p) => p.name === name);
const seen = (p: Keypoint | undefined): p is Keypoint => p !== undefined && p.score >= MIN_KEYPOINT_SCORE;

/** The torso, or undefined when both shoulders are not clearly seen. */
export const locateTorso = (points: ReadonlyArray<Keypoint>): Torso | undefined => {
  const ls = keypoint(points, "left_shoulder");
  const rs = keypoint(points, "right_shoulder");
  if (!seen(ls) || !seen(rs)) return undefined;
  const [sl, sr] = ls.x <= rs.x ? [ls, rs] : [rs, ls];
  const shoulderWidth = dist(sl, sr);
  if (shoulderWidth < 4) return undefined;
  const across = { x: (sr.x - sl.x) / shoulderWidth, y: (sr.y - sl.y) / shoulderWidth };
  const down = across.x >= 0 ? { x: -across.y, y: across.x } : { x: across.y, y: -across.x };
  const shoulderCenter = mid(sl, sr);

  const lh = keypoint(points, "left_hip");
  const rh = keypoint(points, "right_hip");
  const hipsSeen = seen(lh) && seen(rh);
  const hipDepth = hipsSeen ? (mid(lh, rh).x - shoulderCenter.x) * down.x + (mid(lh, rh).y - shoulderCenter.y) * down.y : TORSO_LENGTH * shoulderWidth;
  // Hips closer than half a shoulder width below the shoulders are a misdetection.
  const length = hipDepth >= 0.5 * shoulderWidth ? hipDepth : TORSO_LENGTH * shoulderWidth;
  const hipCenter = add(shoulderCenter, down, length);

  const top = add(shoulderCenter, down, -SHOULDER_RAISE * shoulderWidth);
  const half = (0.5 + SHOULDER_MARGIN) * shoulderWidth;
  const quad = [
    add(top, across, -half),
    add(top, across, half),
    add(hipCenter, across, WAIST_HALF_WIDTH * shoulderWidth),
    add(hipCenter, across, -WAIST_HALF_WIDTH * shoulderWidth),
  ] as const;

  const head = ["nose", "left_eye", "right_eye", "left_ear", "right_ear"].map((n) => keypoint(points, n)).filter(seen);
  const headCenter =
    head.length > 0
      ? { x: head.reduce((s, p) => s + p.x, 0) / head.length, y: head.reduce((s, p) => s + p.y, 0) / head.length }
      : add(shoulderCenter, down, -0.6 * shoulderWidth);
  const le = keypoint(points, "left_ear");
  const re = keypoint(points, "right_ear");
  const rx = Math.max(seen(le) && seen(re) ? 0.75 * dist(le, re) : 0, 0.3 * shoulderWidth);
  const ry = FACE_HEIGHT * rx;
  // Its lowest point just below the chin.
  const face = { ...add(headCenter, down, (CHIN_DEPTH - FACE_HEIGHT) * rx), rx, ry };
  const { x: cx, y: cy } = face;
  return { quad, shoulders: [sl, sr], shoulderWidth, across, down, face: { cx, cy, rx, ry } };
};

/** How a fit preference scales the garment: across the body, and along it. */
export const FIT_SCALE: { readonly [K in TryOnSettings["fitPreference"]]: { readonly width: number; readonly length: number } } = {
  tight: { width: 0.88, length: 0.97 },
  regular: { width: 1, length: 1 },
  loose: { width: 1.2, length: 1.08 },
};

/** The torso quad resized for a fit: widened about the body's centre line, lengthened downward. */
export const fittedQuad = (torso: Torso, fit: TryOnSettings["fitPreference"]): readonly [Point, Point, Point, Point] => {
  const { width, length } = FIT_SCALE[fit];
  const [tl, tr, br, bl] = torso.quad;
  const topMid = mid(tl, tr);
  const bottomMid = mid(bl, br);
  const newBottomMid = add(topMid, { x: bottomMid.x - topMid.x, y: bottomMid.y - topMid.y }, length);
  const scaleAbout = (p: Point, center: Point, shift: Point): Point => add(shift, { x: p.x - center.x, y: p.y - center.y }, width);
  return [scaleAbout(tl, topMid, topMid), scaleAbout(tr, topMid, topMid), scaleAbout(br, bottomMid, newBottomMid), scaleAbout(bl, bottomMid, newBottomMid)];
};
