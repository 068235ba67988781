import type { Keypoint, Point } from "../../ports/engines/tryon-engine.ts";
import { MIN_KEYPOINT_SCORE, type Torso } from "./torso.ts";

/**
 * The arms, from MoveNet keypoints: where each sleeve goes (shoulder → elbow, then the forearm),
 * and the capsules (thick segments) of the arm's parts that stay in front of the garment. MoveNet
 * has no hand keypoints: a hand is a capsule continuing the forearm past the wrist.
 */
export interface Arm {
  /** The image side of the body it hangs from. */
  readonly side: "left" | "right";
  readonly shoulder: Point;
  /** Unit vector along the upper arm; when the elbow is not seen, hanging down, slightly outward. */
  readonly upper: Point;
  /** Undefined when not seen. */
  readonly elbow: Point | undefined;
  readonly wrist: Point | undefined;
  /** Unit vector away from the body, across the upper arm. */
  readonly outward: Point;
}

export interface Capsule {
  readonly a: Point;
  readonly b: Point;
  readonly radius: number;
}

/** Arm proportions, as shares of the shoulder-joint width. */
const UPPER_ARM_RADIUS = 0.14;
const FOREARM_RADIUS = 0.12;
const HAND_RADIUS = 0.12;
const HAND_LENGTH = 0.35;
/** An unseen upper arm is taken to hang this far (radians) out from the body's down direction. */
const HANGING_ANGLE = 0.2;

const sub = (a: Point, b: Point): Point => ({ x: a.x - b.x, y: a.y - b.y });
const add = (a: Point, b: Point, k = 1): Point => ({ x: a.x + k * b.x, y: a.y + k * b.y });
const dot = (a: Point, b: Point) => a.x * b.x + a.y * b.y;
const unit = (p: Point): Point => {
  const n = Math.hypot(p.x, p.y) || 1;
  return { x: p.x / n, y: p.y / n };
};

const seen = (points: ReadonlyArray<Keypoint>, name: string): Keypoint | undefined => {
  const p = points.find((k) => k.name === name);
  return p !== undefined && p.score >= MIN_KEYPOINT_SCORE ? p : undefined;
};

/** Both arms, image-left first; a limb seen too close to its joint (a misdetection) counts as unseen. */
export const locateArms = (points: ReadonlyArray<Keypoint>, torso: Torso): readonly [Arm, Arm] => {
  const arm = (side: "left" | "right"): Arm => {
    const shoulder = side === "left" ? torso.shoulders[0] : torso.shoulders[1];
    // MoveNet names limbs by the person's side; match them by the shoulder they hang from.
    const own = (["left", "right"] as const).find((name) => {
      const s = seen(points, `${name}_shoulder`);
      return s !== undefined && Math.hypot(s.x - shoulder.x, s.y - shoulder.y) < 1e-6;
    });
    const outwardAcross = side === "left" ? { x: -torso.across.x, y: -torso.across.y } : torso.across;
    const minLength = 0.3 * torso.shoulderWidth;
    const far = (p: Keypoint | undefined, from: Point) => (p !== undefined && Math.hypot(p.x - from.x, p.y - from.y) >= minLength ? p : undefined);
    const elbow = own === undefined ? undefined : far(seen(points, `${own}_elbow`), shoulder);
    const wrist = own === undefined || elbow === undefined ? undefined : far(seen(points, `${own}_wrist`), elbow);
    const hanging = add({ x: torso.down.x * Math.cos(HANGING_ANGLE), y: torso.down.y * Math.cos(HANGING_ANGLE) }, outwardAcross, Math.sin(HANGING_ANGLE));
    const upper = elbow === undefined ? unit(hanging) : unit(sub(elbow, shoulder));
    const normal = { x: -upper.y, y: upper.x };
    const outward = dot(normal, outwardAcross) >= 0 ? normal : { x: -normal.x, y: -normal.y };
    return { side, shoulder, upper, elbow, wrist, outward };
  };
  return [arm("left"), arm("right")];
};

/** An elbow this close to the body's centre line (share of the shoulder width) is across the torso. */
const ACROSS_TORSO = 0.3;

/**
 * The seen parts of an arm that can be in front of the torso, as capsules: the forearm and the
 * hand; the upper arm (below the shoulder's cap) only when the elbow lies well within the torso,
 * the arm brought across the body. An upper arm hanging at the side is beside the torso: the panel
 * keeps its sides there, and the sleeve covers the arm.
 */
export const armCapsules = (arm: Arm, torso: Torso): { upper?: Capsule; forearm?: Capsule; hand?: Capsule } => {
  const { shoulder, elbow, wrist } = arm;
  const width = torso.shoulderWidth;
  if (elbow === undefined) return {};
  const upperRadius = UPPER_ARM_RADIUS * width;
  const centre = { x: (torso.shoulders[0].x + torso.shoulders[1].x) / 2, y: (torso.shoulders[0].y + torso.shoulders[1].y) / 2 };
  const acrossTorso = Math.abs(dot(sub(elbow, centre), torso.across)) < ACROSS_TORSO * width;
  const upper = acrossTorso ? { upper: { a: add(shoulder, arm.upper, upperRadius), b: elbow, radius: upperRadius } } : {};
  if (wrist === undefined) return upper;
  const along = unit(sub(wrist, elbow));
  return {
    ...upper,
    forearm: { a: elbow, b: wrist, radius: FOREARM_RADIUS * width },
    // The hand's rounded end stops at the wrist, where a long sleeve's cuff sits.
    hand: { a: add(wrist, along, HAND_RADIUS * width), b: add(wrist, along, HAND_LENGTH * width), radius: HAND_RADIUS * width },
  };
};
