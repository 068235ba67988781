import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { Point } from "../../ports/tryon-engine.ts";
import type { GarmentShape } from "./garment-mask.ts";
import { fitThinPlateSpline, type ThinPlateSpline } from "./thin-plate-spline.ts";
import { fittedQuad, type Torso } from "./torso.ts";

/**
 * Pairs points of the garment (shoulder seams, hem corners, sides, centre, collar) with points
 * of the person's torso, and fits the splines between them: `backward` (person → garment pixels,
 * sampled by the warp graph, in a frame normalised by the shoulder width for float32 accuracy)
 * and `forward` (garment → person pixels, to bound the warp to the box the garment lands in).
 */
export interface GarmentFit {
  readonly backward: ThinPlateSpline;
  /** Person pixels → the backward spline's frame: (p − origin) / scale. */
  readonly origin: Point;
  readonly scale: number;
  /** The person-image box the garment covers: left, top inclusive; right, bottom exclusive. */
  readonly box: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
}

const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
/** Where the shoulder seams sit on a flat garment, as a share of its height below the top. */
const SHOULDER_SEAM = 0.08;
const SMOOTHING = 1e-3;

export const fitGarment = (
  garment: GarmentShape,
  torso: Torso,
  fit: TryOnSettings["fitPreference"],
  image: { readonly width: number; readonly height: number },
): GarmentFit => {
  // Garment landmarks in continuous pixel coordinates (pixel i spans [i, i + 1)).
  const left = garment.bodyLeft;
  const right = garment.bodyRight;
  const centre = (left + right) / 2;
  const top = garment.top;
  const seam = top + SHOULDER_SEAM * (garment.bottom - top);
  const hem = garment.bottom;
  const waist = (seam + hem) / 2;
  const [tl, tr, br, bl] = fittedQuad(torso, fit);
  const collarRise = (SHOULDER_SEAM / (1 - SHOULDER_SEAM)) * Math.hypot(mid(bl, br).x - mid(tl, tr).x, mid(bl, br).y - mid(tl, tr).y);
  const pairs: ReadonlyArray<readonly [Point, Point]> = [
    [{ x: left, y: seam }, tl],
    [{ x: right, y: seam }, tr],
    [{ x: right, y: hem }, br],
    [{ x: left, y: hem }, bl],
    [{ x: centre, y: seam }, mid(tl, tr)],
    [{ x: centre, y: hem }, mid(bl, br)],
    [{ x: left, y: waist }, mid(tl, bl)],
    [{ x: right, y: waist }, mid(tr, br)],
    [{ x: centre, y: waist }, mid(mid(tl, tr), mid(bl, br))],
    [{ x: centre, y: top }, { x: mid(tl, tr).x - torso.down.x * collarRise, y: mid(tl, tr).y - torso.down.y * collarRise }],
  ];
  const origin = tl;
  const scale = torso.shoulderWidth;
  const normalise = (p: Point): Point => ({ x: (p.x - origin.x) / scale, y: (p.y - origin.y) / scale });
  const backward = fitThinPlateSpline(pairs.map(([, person]) => normalise(person)), pairs.map(([g]) => g), SMOOTHING);
  const forward = fitThinPlateSpline(pairs.map(([g]) => g), pairs.map(([, person]) => person), SMOOTHING);

  // Bound the garment's landing box by mapping its bounding box's outline.
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const samples = 24;
  for (let i = 0; i <= samples; i++) {
    const t = i / samples;
    const x = garment.left + t * (garment.right - garment.left);
    const y = garment.top + t * (garment.bottom - garment.top);
    for (const p of [
      { x, y: garment.top },
      { x, y: garment.bottom },
      { x: garment.left, y },
      { x: garment.right, y },
    ]) {
      const q = forward.map(p);
      minX = Math.min(minX, q.x);
      minY = Math.min(minY, q.y);
      maxX = Math.max(maxX, q.x);
      maxY = Math.max(maxY, q.y);
    }
  }
  const box = {
    left: Math.max(0, Math.floor(minX) - 2),
    top: Math.max(0, Math.floor(minY) - 2),
    right: Math.min(image.width, Math.ceil(maxX) + 2),
    bottom: Math.min(image.height, Math.ceil(maxY) + 2),
  };
  return { backward, origin, scale, box };
};
