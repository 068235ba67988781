import type { TryOnSettings } from "../../../domain/tryon-settings.ts";
import type { Point } from "../../../ports/engines/tryon-engine.ts";
import type { Arm } from "../arms.ts";
import { fittedQuad, type Torso } from "../torso.ts";
import type { GarmentShape } from "./garment-mask.ts";
import type { Sleeve } from "./garment-parts.ts";
import { fitThinPlateSpline, type ThinPlateSpline } from "./thin-plate-spline.ts";

/**
 * Part by part, pairs points of the garment with points of the body and fits the splines between
 * them: the torso panel (shoulder seams, hem corners, sides, centre, collar) to the torso, each
 * sleeve (its root, its middle and its cuff) along its arm, bent at the elbow when it reaches
 * past it. Each part gets `backward` (person → garment pixels, sampled by the warp graph, in a
 * frame normalised by the shoulder width for float32 accuracy), and the box it lands in, found
 * with the `forward` spline (garment → person pixels).
 */
export interface Box {
  readonly left: number;
  readonly top: number;
  /** Exclusive. */
  readonly right: number;
  readonly bottom: number;
}

/** The smallest box holding every box given (those missing left out), or undefined when none is. */
export const boxAround = (boxes: ReadonlyArray<Box | undefined>): Box | undefined => {
  const present = boxes.filter((b) => b !== undefined);
  if (present.length === 0) return undefined;
  return {
    left: Math.min(...present.map((b) => b.left)),
    top: Math.min(...present.map((b) => b.top)),
    right: Math.max(...present.map((b) => b.right)),
    bottom: Math.max(...present.map((b) => b.bottom)),
  };
};

export interface PartFit {
  readonly backward: ThinPlateSpline;
  /** Person pixels → the backward spline's frame: (p − origin) / scale. */
  readonly origin: Point;
  readonly scale: number;
  /** The person-image box the part covers. */
  readonly box: Box;
}

export interface PanelFit extends PartFit {
  readonly forward: ThinPlateSpline;
  /** Person pixels per garment pixel, across the shoulders. */
  readonly pixelScale: number;
  /** The fitted torso's corners: image-left shoulder, image-right shoulder, image-right hip, image-left hip. */
  readonly quad: readonly [Point, Point, Point, Point];
}

export interface SleeveFit extends PartFit {
  /** Whether it reaches past the elbow, down the forearm. */
  readonly coversForearm: boolean;
}

const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
const add = (a: Point, b: Point, k = 1): Point => ({ x: a.x + k * b.x, y: a.y + k * b.y });
const dot = (a: Point, b: Point) => a.x * b.x + a.y * b.y;
const unit = (p: Point): Point => {
  const n = Math.hypot(p.x, p.y) || 1;
  return { x: p.x / n, y: p.y / n };
};
/** Where the shoulder seams sit on a flat garment, as a share of its height below the top. */
const SHOULDER_SEAM = 0.08;
const SMOOTHING = 1e-3;
/** How far down the arm the armpit sits, as a share of the sleeve's root (it runs round the shoulder). */
const ARMPIT_DEPTH = 0.75;
/** A sleeve bends at the elbow when it reaches this much past it. */
const ELBOW_SLACK = 1.05;
/** A sleeve cut short at the wrist keeps at least this share of its length. */
const MIN_SLEEVE_SHARE = 0.3;

type Pairs = ReadonlyArray<readonly [Point, Point]>;

/** The box the garment's `bounds` land in, by mapping its outline forward, a few pixels wider. */
const landingBox = (forward: ThinPlateSpline, bounds: Box, image: { readonly width: number; readonly height: number }): Box => {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const samples = 24;
  for (let i = 0; i <= samples; i++) {
    const t = i / samples;
    const x = bounds.left + t * (bounds.right - bounds.left);
    const y = bounds.top + t * (bounds.bottom - bounds.top);
    for (const p of [
      { x, y: bounds.top },
      { x, y: bounds.bottom },
      { x: bounds.left, y },
      { x: bounds.right, y },
    ]) {
      const q = forward.map(p);
      minX = Math.min(minX, q.x);
      minY = Math.min(minY, q.y);
      maxX = Math.max(maxX, q.x);
      maxY = Math.max(maxY, q.y);
    }
  }
  return {
    left: Math.max(0, Math.floor(minX) - 2),
    top: Math.max(0, Math.floor(minY) - 2),
    right: Math.min(image.width, Math.ceil(maxX) + 2),
    bottom: Math.min(image.height, Math.ceil(maxY) + 2),
  };
};

const fitPairs = (pairs: Pairs, origin: Point, scale: number) => {
  const normalise = (p: Point): Point => ({ x: (p.x - origin.x) / scale, y: (p.y - origin.y) / scale });
  const backward = fitThinPlateSpline(
    pairs.map(([, person]) => normalise(person)),
    pairs.map(([g]) => g),
    SMOOTHING,
  );
  const forward = fitThinPlateSpline(
    pairs.map(([g]) => g),
    pairs.map(([, person]) => person),
    SMOOTHING,
  );
  return { backward, forward };
};

/** The torso panel onto the torso quadrilateral, resized for the fit. */
export const fitPanel = (
  garment: GarmentShape,
  bounds: Box,
  torso: Torso,
  fit: TryOnSettings["fitPreference"],
  image: { readonly width: number; readonly height: number },
): PanelFit => {
  // Garment landmarks in continuous pixel coordinates (pixel i spans [i, i + 1)).
  const left = garment.bodyLeft;
  const right = garment.bodyRight;
  const centre = (left + right) / 2;
  const top = garment.top;
  const seam = top + SHOULDER_SEAM * (garment.bottom - top);
  const hem = garment.bottom;
  const waist = (seam + hem) / 2;
  const quad = fittedQuad(torso, fit);
  const [tl, tr, br, bl] = quad;
  const collarRise = (SHOULDER_SEAM / (1 - SHOULDER_SEAM)) * Math.hypot(mid(bl, br).x - mid(tl, tr).x, mid(bl, br).y - mid(tl, tr).y);
  const pairs: Pairs = [
    [{ x: left, y: seam }, tl],
    [{ x: right, y: seam }, tr],
    [{ x: right, y: hem }, br],
    [{ x: left, y: hem }, bl],
    [{ x: centre, y: seam }, mid(tl, tr)],
    [{ x: centre, y: hem }, mid(bl, br)],
    [{ x: left, y: waist }, mid(tl, bl)],
    [{ x: right, y: waist }, mid(tr, br)],
    [{ x: centre, y: waist }, mid(mid(tl, tr), mid(bl, br))],
    [
      { x: centre, y: top },
      { x: mid(tl, tr).x - torso.down.x * collarRise, y: mid(tl, tr).y - torso.down.y * collarRise },
    ],
  ];
  const { backward, forward } = fitPairs(pairs, tl, torso.shoulderWidth);
  const pixelScale = Math.hypot(tr.x - tl.x, tr.y - tl.y) / Math.max(1, right - left);
  return { backward, forward, origin: tl, scale: torso.shoulderWidth, box: landingBox(forward, bounds, image), pixelScale, quad };
};

/**
 * A sleeve along its arm: its root from the panel's shoulder corner round to the armpit, its
 * middle and cuff centred on the arm's axis at their distance along the sleeve, across it as
 * wide as the garment's sleeve (scaled like the panel). A sleeve longer than the upper arm bends
 * at the elbow and follows the forearm (or carries straight on when the wrist is not seen); one
 * that would reach past a seen wrist ends there, where a long sleeve's cuff is made to sit.
 */
export const fitSleeve = (sleeve: Sleeve, panel: PanelFit, arm: Arm, torso: Torso, image: { readonly width: number; readonly height: number }): SleeveFit => {
  const k = panel.pixelScale;
  const rootCentre = mid(sleeve.rootTop, sleeve.rootBottom);
  const rootLength = Math.hypot(sleeve.rootBottom.x - sleeve.rootTop.x, sleeve.rootBottom.y - sleeve.rootTop.y);
  const halfWidth = (Math.hypot(sleeve.cuffOuter.x - sleeve.cuffInner.x, sleeve.cuffOuter.y - sleeve.cuffInner.y) / 2) * k;
  const { shoulder, upper, outward } = arm;
  const inward = { x: -outward.x, y: -outward.y };
  const corner = arm.side === "left" ? panel.quad[0] : panel.quad[1];
  const armpit = add(add(shoulder, inward, halfWidth), upper, ARMPIT_DEPTH * rootLength * k);
  // Distances along the arm from the shoulder joint: the root's centre, then the sleeve's length.
  const rootAlong = dot({ x: mid(corner, armpit).x - shoulder.x, y: mid(corner, armpit).y - shoulder.y }, upper);
  const upperLength = arm.elbow === undefined ? Infinity : Math.hypot(arm.elbow.x - shoulder.x, arm.elbow.y - shoulder.y);
  const toWrist =
    arm.elbow === undefined || arm.wrist === undefined ? Infinity : upperLength + Math.hypot(arm.wrist.x - arm.elbow.x, arm.wrist.y - arm.elbow.y);
  // (A wrist seen above the root, in a pose this fit cannot follow, does not shorten it to nothing.)
  const length = Math.max(MIN_SLEEVE_SHARE * sleeve.length * k, Math.min(sleeve.length * k, toWrist - rootAlong));
  const garmentAt = (t: number) => add(rootCentre, { x: sleeve.cuff.x - rootCentre.x, y: sleeve.cuff.y - rootCentre.y }, t);
  // The garment's own normal toward the shoulder's side (cuffOuter's), scaled to its half width.
  const garmentAcross = { x: (sleeve.cuffOuter.x - sleeve.cuffInner.x) / 2, y: (sleeve.cuffOuter.y - sleeve.cuffInner.y) / 2 };
  const pairs: Array<readonly [Point, Point]> = [
    [sleeve.rootTop, corner],
    [sleeve.rootBottom, armpit],
  ];
  const section = (t: number, centre: Point, across: Point) => {
    const g = garmentAt(t);
    pairs.push([g, centre], [add(g, garmentAcross), add(centre, across, halfWidth)], [add(g, garmentAcross, -1), add(centre, across, -halfWidth)]);
  };
  const coversForearm = arm.elbow !== undefined && rootAlong + length > ELBOW_SLACK * upperLength;
  if (arm.elbow !== undefined && coversForearm) {
    const elbow = arm.elbow;
    const forearm = arm.wrist === undefined ? upper : unit({ x: arm.wrist.x - elbow.x, y: arm.wrist.y - elbow.y });
    const bend = unit(add(upper, forearm));
    const bendAcross = dot({ x: -bend.y, y: bend.x }, outward) >= 0 ? { x: -bend.y, y: bend.x } : { x: bend.y, y: -bend.x };
    const forearmAcross = dot({ x: -forearm.y, y: forearm.x }, outward) >= 0 ? { x: -forearm.y, y: forearm.x } : { x: forearm.y, y: -forearm.x };
    const toElbow = Math.max(0.1, Math.min(0.9, (upperLength - rootAlong) / length));
    section(toElbow / 2, add(shoulder, upper, rootAlong + (toElbow / 2) * length), outward);
    section(toElbow, elbow, bendAcross);
    section(1, add(elbow, forearm, rootAlong + length - upperLength), forearmAcross);
  } else {
    section(0.5, add(shoulder, upper, rootAlong + length / 2), outward);
    section(1, add(shoulder, upper, rootAlong + length), outward);
  }
  const { backward, forward } = fitPairs(pairs, shoulder, torso.shoulderWidth);
  return { backward, origin: shoulder, scale: torso.shoulderWidth, box: landingBox(forward, sleeve.bounds, image), coversForearm };
};
