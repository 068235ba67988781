import type { Keypoint, Point } from "../../ports/engines/tryon-engine.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import type { Torso } from "./torso.ts";

/**
 * What the engine knows about how well it read the person, from what it already computed: MoveNet's
 * keypoint scores, the torso quadrilateral and the person segmentation. Each signal is 0-1.
 */
export interface ParseSignals {
  /** The weaker shoulder's keypoint score. */
  readonly shoulders: number;
  /** The elbows' mean score (the sleeves follow them). */
  readonly elbows: number;
  /** The hips' mean score (the hem's line; without them the torso's length is a proportion). */
  readonly hips: number;
  /** The best of nose and eyes: a face seen, so the person faces the camera. */
  readonly face: number;
  /**
   * How frontal the shoulders are: their width over 1.6 head-to-shoulder-line heights, at most 1.
   * A body turned sideways keeps its head height and loses its shoulder width. 0 when no face is seen.
   */
  readonly frontal: number;
  /**
   * How far the nose sits from midway between the ears, in ear spans: about 0 for a face towards the
   * camera, growing with the head's turn (≈ 0.67·tan of the angle). 0 when the nose or an ear is not seen.
   */
  readonly headTurn: number;
  /** Share of the torso quadrilateral inside the photo (a torso cut off by the frame is below 1). */
  readonly inFrame: number;
  /** Share of the torso quadrilateral's in-frame part that the segmentation calls person. */
  readonly torsoPerson: number;
}

const FACE_POINTS = ["nose", "left_eye", "right_eye"];
/** The face keypoints that count for the head's centre need at least this score. */
const HEAD_SCORE = 0.3;
/**
 * Shoulder-joint width over the eyes' height above the shoulder line, at which the shoulders count as
 * fully frontal: the tested photos give 1.25-1.6 and more (frontal 0.78-1). Squeezing a photo sideways,
 * as a turn would, left it at 0.73-0.81, so it refuses only far below that (PARSE_LIMITS.frontal):
 * a body side-on to the camera.
 */
const FRONTAL_RATIO = 1.6;
/** The torso quadrilateral is sampled on this many points a side. */
const GRID = 24;

const score = (points: ReadonlyArray<Keypoint>, name: string): number => points.find((p) => p.name === name)?.score ?? 0;

const inside = (quad: ReadonlyArray<Point>, x: number, y: number): boolean => {
  let odd = false;
  for (let i = 0, j = quad.length - 1; i < quad.length; j = i++) {
    const a = quad[i]!;
    const b = quad[j]!;
    if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) odd = !odd;
  }
  return odd;
};

export const parseSignals = (
  keypoints: ReadonlyArray<Keypoint>,
  torso: Torso,
  probabilities: ProbabilityMap,
  size: { readonly width: number; readonly height: number },
): ParseSignals => {
  const shoulders = Math.min(score(keypoints, "left_shoulder"), score(keypoints, "right_shoulder"));
  const elbows = (score(keypoints, "left_elbow") + score(keypoints, "right_elbow")) / 2;
  const hips = (score(keypoints, "left_hip") + score(keypoints, "right_hip")) / 2;
  const face = Math.max(...FACE_POINTS.map((name) => score(keypoints, name)));

  const head = keypoints.filter((p) => FACE_POINTS.includes(p.name) && p.score >= HEAD_SCORE);
  const [a, b] = torso.shoulders;
  let frontal = 0;
  if (head.length > 0) {
    const hx = head.reduce((s, p) => s + p.x, 0) / head.length;
    const hy = head.reduce((s, p) => s + p.y, 0) / head.length;
    const height = ((a.x + b.x) / 2 - hx) * torso.down.x + ((a.y + b.y) / 2 - hy) * torso.down.y;
    frontal = height > 0 ? Math.min(1, torso.shoulderWidth / (FRONTAL_RATIO * height)) : 0;
  }

  const [nose, leftEar, rightEar] = ["nose", "left_ear", "right_ear"].map((name) => keypoints.find((p) => p.name === name));
  const headTurn =
    nose !== undefined && leftEar !== undefined && rightEar !== undefined && [nose, leftEar, rightEar].every((p) => p.score >= HEAD_SCORE)
      ? Math.abs(nose.x - (leftEar.x + rightEar.x) / 2) / Math.max(1, Math.abs(leftEar.x - rightEar.x))
      : 0;

  // The quadrilateral's bounding box, sampled on a grid: which samples fall inside it, the photo, the person.
  const xs = torso.quad.map((p) => p.x);
  const ys = torso.quad.map((p) => p.y);
  const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  let total = 0;
  let framed = 0;
  let person = 0;
  for (let j = 0; j < GRID; j++) {
    const y = top + ((j + 0.5) * (bottom - top)) / GRID;
    for (let i = 0; i < GRID; i++) {
      const x = left + ((i + 0.5) * (right - left)) / GRID;
      if (!inside(torso.quad, x, y)) continue;
      total++;
      if (x < 0 || y < 0 || x >= size.width || y >= size.height) continue;
      framed++;
      const mx = Math.min(probabilities.width - 1, Math.floor((x * probabilities.width) / size.width));
      const my = Math.min(probabilities.height - 1, Math.floor((y * probabilities.height) / size.height));
      if (probabilities.values[my * probabilities.width + mx]! >= 0.5) person++;
    }
  }
  return {
    shoulders,
    elbows,
    hips,
    face,
    frontal,
    headTurn,
    inFrame: total === 0 ? 0 : framed / total,
    torsoPerson: framed === 0 ? 0 : person / framed,
  };
};

/**
 * Below these the parse is too unsure for a picture a shopper would believe, and the request is
 * refused (422, uncharged). Measured with bench/tryon-parse-signals.ts on every photo the try-on
 * is tested with (the NASA portrait at 512 and 768×1024, Grace Hopper, the cameraman, the drawn
 * person, each mirrored too, the close headshot): face ≥ 0.61, torso in the photo ≥ 0.38 (Grace
 * Hopper, cut at mid-chest), torso seen as person ≥ 0.84. Crops of the same photos: the astronaut
 * cut below the eyes scores face 0.21-0.24 (and its segmentation loses the torso: 0.37); cut just
 * below the shoulders (top 230 px), 0.25 of the torso in the photo.
 * Turned sideways (bench:tryon-parse with the shared photos of ordinary people): the accepted photos
 * are frontal ≥ 0.73 and turn their head ≤ 2.0 (the cameraman, three-quarters, cut below the crown);
 * a woman side-on hugging a dog is frontal 0.16, a woman in profile photographing with her phone
 * turns her head 4.79 (MoveNet puts both ears behind the face).
 */
export const PARSE_LIMITS = { face: 0.4, frontal: 0.4, headTurn: 2.5, inFrame: 0.3, torsoPerson: 0.5 } as const;

export type ParseJudgement =
  | { readonly sure: true; readonly confidence: number }
  | { readonly sure: false; readonly code: "PERSON_TURNED_AWAY" | "TORSO_NOT_VISIBLE"; readonly message: string };

const percent = (v: number) => `${Math.round(100 * v)} %`;

/**
 * Refuses a parse the engine cannot trust, or rates the one it can. The confidence (0-1) is the
 * keypoints' mean score (shoulders, elbows, hips, face) times how frontal the shoulders are, the
 * share of the torso in the photo and the share of it seen as person: each one that is short
 * lowers it, so a torso half out of the photo halves it.
 */
export const judgeParse = (s: ParseSignals): ParseJudgement => {
  if (s.face < PARSE_LIMITS.face) {
    return {
      sure: false,
      code: "PERSON_TURNED_AWAY",
      message:
        "no face was found above the shoulders: the person seems turned away from the camera, or their head is out of the photo; " +
        "send a photo of the person facing the camera, head and torso in view",
    };
  }
  if (s.frontal < PARSE_LIMITS.frontal || s.headTurn > PARSE_LIMITS.headTurn) {
    const why =
      s.frontal < PARSE_LIMITS.frontal ? `the shoulders look ${percent(s.frontal)} as wide as a body facing the camera` : "the face is seen in profile";
    return {
      sure: false,
      code: "PERSON_TURNED_AWAY",
      message: `the person is turned sideways (${why}): the garment cannot be placed; send a photo of the person facing the camera`,
    };
  }
  if (s.inFrame < PARSE_LIMITS.inFrame || s.torsoPerson < PARSE_LIMITS.torsoPerson) {
    const why =
      s.inFrame < PARSE_LIMITS.inFrame
        ? `only ${percent(s.inFrame)} of the torso (shoulders to hips) is inside the photo`
        : `only ${percent(s.torsoPerson)} of the torso (shoulders to hips) is seen as the person`;
    return { sure: false, code: "TORSO_NOT_VISIBLE", message: `${why}: the garment cannot be placed; send a photo that shows more of the torso` };
  }
  const keypoints = (s.shoulders + s.elbows + s.hips + s.face) / 4;
  const confidence = keypoints * s.frontal * s.inFrame * s.torsoPerson;
  return { sure: true, confidence: Math.round(1000 * Math.min(1, Math.max(0, confidence))) / 1000 };
};
