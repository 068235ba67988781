import type { Keypoint, UnusableInputCode } from "../../ports/engines/tryon-engine.ts";
import type { RawImage } from "../image/raw-decoding.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import type { PoseModel } from "./movenet-pose.ts";
import { labelRegions } from "./regions.ts";
import { locateTorso, MIN_KEYPOINT_SCORE, type Torso } from "./torso.ts";

/**
 * Decides whether a photo shows exactly one usable person. MoveNet finds one body even when
 * there are several, so each further person-shaped region of the segmentation is checked with
 * MoveNet on its own crop: a second pair of shoulders means several people. People who overlap
 * in the photo form one region and are not told apart.
 */
export type PersonCheck =
  | { readonly usable: true; readonly keypoints: ReadonlyArray<Keypoint>; readonly torso: Torso }
  | { readonly usable: false; readonly code: UnusableInputCode; readonly message: string };

const MIN_PERSON_COVERAGE = 0.02;
/** A region smaller than this share of the main person's is not a person of comparable size. */
const MIN_RELATIVE_SIZE = 0.2;

/**
 * The photo with as much black below it again: MoveNet, trained on whole bodies, misses the
 * shoulders of a head-and-shoulders portrait whose shoulders touch the bottom edge (scores 0.05-0.3
 * on such photos), and finds them (0.3-0.6) once the body has room to continue below. The
 * keypoints keep the photo's coordinates, as only rows below it are added.
 */
const withRoomBelow = (image: RawImage): RawImage => {
  const data = new Uint8Array(2 * image.data.length);
  data.set(image.data);
  return { ...image, data, height: 2 * image.height };
};

/**
 * The ears at least this share of the shoulder width apart: a head seen from the front (0.5-0.65
 * on the shared portraits; 0.24 on a profile).
 */
const FRONTAL_EARS = 0.3;

/**
 * A reading made with room below is taken only for a body facing the camera: its left shoulder
 * on the image's right and its ears well apart. The room lets MoveNet find shoulders on profiles
 * and backs too, which the photo alone refused (as NO_PERSON_DETECTED, which they keep).
 */
const facingCamera = (keypoints: ReadonlyArray<Keypoint>): boolean => {
  const at = (name: string) => keypoints.find((k) => k.name === name);
  const [ls, rs, le, re] = [at("left_shoulder"), at("right_shoulder"), at("left_ear"), at("right_ear")];
  if (ls === undefined || rs === undefined || le === undefined || re === undefined) return false;
  if (le.score < MIN_KEYPOINT_SCORE || re.score < MIN_KEYPOINT_SCORE) return false;
  return ls.x > rs.x && le.x - re.x >= FRONTAL_EARS * (ls.x - rs.x);
};

/** MoveNet's keypoints of the photo, or of the photo with room below when the first finds no shoulders and the second a body facing the camera. */
const bodyKeypoints = async (image: RawImage, pose: PoseModel): Promise<ReadonlyArray<Keypoint>> => {
  const keypoints = await pose.keypoints(image);
  if (locateTorso(keypoints) !== undefined) return keypoints;
  const roomy = await pose.keypoints(withRoomBelow(image));
  return facingCamera(roomy) ? roomy : keypoints;
};

export const checkPerson = async (image: RawImage, probabilities: ProbabilityMap, pose: PoseModel): Promise<PersonCheck> => {
  const keypoints = await bodyKeypoints(image, pose);
  const map = probabilities;
  const on = Uint8Array.from(map.values, (p) => (p >= 0.5 ? 1 : 0));
  const coverage = on.reduce((n, v) => n + v, 0) / on.length;
  const torso = locateTorso(keypoints);
  if (torso === undefined || coverage < MIN_PERSON_COVERAGE) {
    return { usable: false, code: "NO_PERSON_DETECTED", message: "no person with both shoulders visible was found in the person image" };
  }
  const { labels, regions } = labelRegions(on, map.width);
  const sx = map.width / image.width;
  const sy = map.height / image.height;
  const [a, b] = torso.shoulders;
  const cx = Math.min(map.width - 1, Math.max(0, Math.round(((a.x + b.x) / 2) * sx)));
  const cy = Math.min(map.height - 1, Math.max(0, Math.round(((a.y + b.y) / 2 + 0.3 * torso.shoulderWidth) * sy)));
  const mainLabel = labels[cy * map.width + cx] ?? -1;
  const main = regions.find((r) => r.label === mainLabel) ?? regions[0];
  const minSize = Math.max(MIN_PERSON_COVERAGE * on.length, MIN_RELATIVE_SIZE * (main?.size ?? 0));
  for (const other of regions) {
    if (other === main || other.size < minSize) continue;
    const padX = 0.1 * (other.right - other.left);
    const padY = 0.1 * (other.bottom - other.top);
    const left = Math.max(0, Math.floor((other.left - padX) / sx));
    const top = Math.max(0, Math.floor((other.top - padY) / sy));
    const right = Math.min(image.width, Math.ceil((other.right + padX) / sx));
    const bottom = Math.min(image.height, Math.ceil((other.bottom + padY) / sy));
    if (right - left < 8 || bottom - top < 8) continue;
    const second = await pose.keypoints(image, { left, top, width: right - left, height: bottom - top });
    if (locateTorso(second) !== undefined) {
      return { usable: false, code: "MULTIPLE_PEOPLE", message: "the person image shows more than one person; send a photo of one person" };
    }
  }
  return { usable: true, keypoints, torso };
};
