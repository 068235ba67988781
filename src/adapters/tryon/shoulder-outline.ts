import type { Point } from "../../ports/engines/tryon-engine.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import type { Torso } from "./torso.ts";

/**
 * The torso with its shoulder corners moved onto the person's own outline. The keypoints give
 * the shoulder joints, which lie inside the body: proportions alone put the garment's shoulders a
 * fixed step above and outside them, so on square or padded shoulders the old clothes showed
 * above the new garment's shoulder line, and on narrow ones its corners stood out past it. Here
 * each corner goes up from the joint to where the silhouette ends and out to the shoulder's side,
 * within bounds that keep a misread outline from moving it far.
 */
export interface ShoulderMaps {
  /** The person segmentation. */
  readonly person: ProbabilityMap;
  /** The hair segmentation: hair over a shoulder hides its outline. */
  readonly hair: ProbabilityMap;
}

/** Bounds on the measured outline, in shoulder widths: up from the joint, and out from it. */
const UP = { min: 0.02, max: 0.3 } as const;
const OUT = { min: 0.06, max: 0.22 } as const;
/** Where the seam's end sits between the joint and the outline's side (the sleeve takes the rest). */
const OUT_SHARE = 0.75;

const at = (map: ProbabilityMap, image: { readonly width: number; readonly height: number }, p: Point): number => {
  const x = Math.min(map.width - 1, Math.max(0, Math.floor((p.x * map.width) / image.width)));
  const y = Math.min(map.height - 1, Math.max(0, Math.floor((p.y * map.height) / image.height)));
  return map.values[y * map.width + x]!;
};

const insideFace = (face: Torso["face"], p: Point) => ((p.x - face.cx) / face.rx) ** 2 + ((p.y - face.cy) / face.ry) ** 2 <= 1;

/**
 * How far from `from` along `direction` (a unit vector) the person goes on, in pixels: the last
 * step still `inside`. Undefined when no edge is seen: past `limit`, or `hidden` first.
 */
const reach = (
  from: Point,
  direction: Point,
  limit: number,
  inside: (p: Point) => boolean,
  hidden: (p: Point) => boolean = () => false,
): number | undefined => {
  for (let d = 1; d <= limit; d++) {
    const p = { x: from.x + d * direction.x, y: from.y + d * direction.y };
    if (hidden(p)) return undefined;
    if (!inside(p)) return d - 1;
  }
  return undefined;
};

export const outlineShoulders = (torso: Torso, maps: ShoulderMaps, image: { readonly width: number; readonly height: number }): Torso => {
  const sw = torso.shoulderWidth;
  const up = { x: -torso.down.x, y: -torso.down.y };
  const inPhoto = (p: Point) => p.x >= 0 && p.y >= 0 && p.x < image.width && p.y < image.height;
  const body = (p: Point) => at(maps.person, image, p) >= 0.5;
  // Each step measured where the outline is seen; where it is not, the proportions' step instead:
  // an arm raised beside the head carries the silhouette on; the body goes on past the photo's
  // edge; hair or the chin lies over the shoulder (the hair model also reads some black tops as
  // hair, so hair never lowers a corner).
  const corner = (joint: Point, outward: Point, proportional: Point): Point => {
    const offset = { x: proportional.x - joint.x, y: proportional.y - joint.y };
    const offPhoto = (p: Point) => !inPhoto(p);
    const rise = reach(joint, up, UP.max * sw, body, (p) => offPhoto(p) || at(maps.hair, image, p) >= 0.5 || insideFace(torso.face, p));
    const side = reach(joint, outward, OUT.max * sw, body, offPhoto);
    const u = rise === undefined ? offset.x * up.x + offset.y * up.y : Math.max(UP.min * sw, rise);
    const o = side === undefined ? offset.x * outward.x + offset.y * outward.y : OUT_SHARE * Math.max(OUT.min * sw, side);
    return { x: joint.x + o * outward.x + u * up.x, y: joint.y + o * outward.y + u * up.y };
  };
  const [left, right] = torso.shoulders;
  const [tl, tr, br, bl] = torso.quad;
  const outwardLeft = { x: -torso.across.x, y: -torso.across.y };
  return { ...torso, quad: [corner(left, outwardLeft, tl), corner(right, torso.across, tr), br, bl] };
};
