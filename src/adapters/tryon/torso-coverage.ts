import type { Point } from "../../ports/engines/tryon-engine.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import type { Capsule } from "./arms.ts";
import { clearance } from "./garment/part-layers.ts";
import type { Ellipse } from "./torso.ts";

/**
 * How much of what the person wore on the torso the new garment covers. With no clothes parser,
 * the old garment's area is taken to be the torso: the person's silhouette between the shoulder
 * and the hip lines (the detected torso quadrilateral), less the arms and the hair in front of it
 * and the face.
 * The share of it under the new garment (its coverage, 0-1, weighted by the garment's opacity) is
 * what `data.coverage` reports: a shorter or narrower garment leaves the rest showing.
 */
export const torsoCoverage = (
  garment: { readonly rgba: Uint8Array; readonly width: number; readonly height: number },
  quad: ReadonlyArray<Point>,
  person: ProbabilityMap,
  arms: ReadonlyArray<Capsule>,
  face: Ellipse,
  /** What lies in front of the torso (hair-in-front.ts), at its own resolution. */
  inFront: ProbabilityMap,
): number => {
  const { width, height } = garment;
  const box = {
    left: Math.max(0, Math.floor(Math.min(...quad.map((p) => p.x)))),
    right: Math.min(width, Math.ceil(Math.max(...quad.map((p) => p.x)))),
    top: Math.max(0, Math.floor(Math.min(...quad.map((p) => p.y)))),
    bottom: Math.min(height, Math.ceil(Math.max(...quad.map((p) => p.y)))),
  };
  if (box.right <= box.left || box.bottom <= box.top) return 0;
  const boxWidth = box.right - box.left;
  const clear = clearance(box, arms);
  const sx = person.width / width;
  const sy = person.height / height;
  const fx = inFront.width / width;
  const fy = inFront.height / height;
  let area = 0;
  let covered = 0;
  const crossings: Array<number> = [];
  for (let y = box.top; y < box.bottom; y++) {
    const py = y + 0.5;
    // The quadrilateral's span on this row (it is convex): between its edges' crossings.
    crossings.length = 0;
    for (let i = 0, j = quad.length - 1; i < quad.length; j = i++) {
      const a = quad[i]!;
      const b = quad[j]!;
      if (a.y > py !== b.y > py) crossings.push(((b.x - a.x) * (py - a.y)) / (b.y - a.y) + a.x);
    }
    if (crossings.length < 2) continue;
    const from = Math.max(box.left, Math.ceil(Math.min(...crossings) - 0.5));
    const to = Math.min(box.right, Math.ceil(Math.max(...crossings) - 0.5));
    const row = Math.min(person.height - 1, Math.floor(py * sy)) * person.width;
    const frontRow = Math.min(inFront.height - 1, Math.floor(py * fy)) * inFront.width;
    const faceY = ((py - face.cy) / face.ry) ** 2;
    for (let x = from; x < to; x++) {
      const px = x + 0.5;
      if (person.values[row + Math.min(person.width - 1, Math.floor(px * sx))]! < 0.5) continue;
      if (faceY + ((px - face.cx) / face.rx) ** 2 <= 1 || clear[(y - box.top) * boxWidth + x - box.left]! < 0.5) continue;
      if (inFront.values[frontRow + Math.min(inFront.width - 1, Math.floor(px * fx))]! >= 0.5) continue;
      area++;
      covered += garment.rgba[4 * (y * width + x) + 3]!;
    }
  }
  return area === 0 ? 0 : covered / 255 / area;
};
