import type { GarmentKind, Point } from "../../../ports/engines/tryon-engine.ts";
import { labelRegions } from "../regions.ts";
import type { GarmentShape } from "./garment-mask.ts";

/**
 * What kind of garment a product shot shows, read from its outline alone, and its parts: the
 * torso panel and each sleeve, so that each can be warped onto its own part of the body.
 *
 * Bottoms and dresses are told apart from tops by shapes a flat-lay shows plainly: trousers have
 * a gap between the legs below the middle of the garment; a skirt has a straight waistband as wide
 * as the rows below it and no shoulders; a dress is far longer than it is wide across the chest.
 * A sleeve is a region of the garment outside the body's sides that meets a side near the top.
 */
export type UnplaceableKind = "trousers" | "skirt" | "dress";

/** Part labels of `GarmentParts.labels`. */
export const PART = { none: 0, torso: 1, leftSleeve: 2, rightSleeve: 3 } as const;

export interface Sleeve {
  /** The image side it is on, in the product shot. */
  readonly side: "left" | "right";
  readonly label: typeof PART.leftSleeve | typeof PART.rightSleeve;
  /** Its pixels' extent: left, top inclusive; right, bottom exclusive. */
  readonly bounds: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
  /** Where it meets the body's side: the shoulder end and the armpit end. */
  readonly rootTop: Point;
  readonly rootBottom: Point;
  /** The cuff's two ends (the one on the shoulder's side first) and its centre. */
  readonly cuffOuter: Point;
  readonly cuffInner: Point;
  readonly cuff: Point;
  /** From the root's centre to the cuff's centre, in garment pixels. */
  readonly length: number;
}

export interface GarmentParts {
  readonly kind: GarmentKind;
  /** Per garment pixel: a PART label. */
  readonly labels: Uint8Array;
  /** The torso panel's extent. */
  readonly torsoBounds: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number };
  readonly sleeves: ReadonlyArray<Sleeve>;
}

export type GarmentAnalysis = { readonly placeable: true; readonly parts: GarmentParts } | { readonly placeable: false; readonly kind: UnplaceableKind };

/** Share of the lower rows (70-95 % of the height) with a gap at the centre: trousers' legs. */
const LEG_GAP_ROWS = 0.6;
/** A dress: this much longer than its chest is wide, or flaring and this much longer. */
const DRESS_LENGTH = 2.6;
const FLARED_DRESS_LENGTH = 2.1;
const FLARE = 1.15;
/** A sleeve reaches at least this far past the body's side (share of the body's width)... */
const MIN_SLEEVE_REACH = 0.08;
/** ...and is long sleeved when its length from root to cuff is at least this share of it. */
const LONG_SLEEVE = 0.75;
/** A sleeve's root spans at most this share of the body's width (a sleeve lying along the side). */
const MAX_ROOT = 0.5;
/** The outline's normal is read from the garment pixels within this many pixels. */
const NORMAL_REACH = 3;
/** The cuff lies at least this share of the sleeve's reach from its root. */
const CUFF_REACH = 0.65;

const runsOf = (mask: Uint8Array, width: number, y: number): Array<readonly [number, number]> => {
  const runs: Array<readonly [number, number]> = [];
  let start = -1;
  for (let x = 0; x <= width; x++) {
    const on = x < width && mask[y * width + x]! > 0;
    if (on && start < 0) start = x;
    if (!on && start >= 0) {
      runs.push([start, x]);
      start = -1;
    }
  }
  return runs;
};

const rowAt = (g: GarmentShape, share: number) => Math.min(g.bottom - 1, Math.round(g.top + share * (g.bottom - g.top)));
const extent = (runs: ReadonlyArray<readonly [number, number]>) => (runs.length === 0 ? 0 : runs[runs.length - 1]![1] - runs[0]![0]);
/** The width of the run that holds column x (0 when x is off). */
const runWidthAt = (runs: ReadonlyArray<readonly [number, number]>, x: number) => {
  const run = runs.find(([a, b]) => a <= x && x < b);
  return run === undefined ? 0 : run[1] - run[0];
};

const unplaceable = (g: GarmentShape): UnplaceableKind | undefined => {
  const { mask, width } = g;
  const centre = Math.floor((g.left + g.right) / 2);
  let gapRows = 0;
  let rows = 0;
  for (let y = rowAt(g, 0.7); y <= rowAt(g, 0.95); y++) {
    const runs = runsOf(mask, width, y);
    rows++;
    if (runs.length >= 2 && runs[0]![1] <= centre && runs[runs.length - 1]![0] > centre && runWidthAt(runs, centre) === 0) gapRows++;
  }
  if (rows > 0 && gapRows >= LEG_GAP_ROWS * rows) return "trousers";
  const waist = runsOf(mask, width, rowAt(g, 0.03));
  const below = runsOf(mask, width, rowAt(g, 0.12));
  const hem = extent(runsOf(mask, width, rowAt(g, 0.92)));
  // A waistband: one run at the top as wide as the garment just below it (tops have a neckline or straps).
  if (waist.length === 1 && extent(waist) >= 0.85 * extent(below) && hem >= FLARE * extent(waist)) return "skirt";
  const chest = runWidthAt(runsOf(mask, width, rowAt(g, 0.3)), centre);
  const length = g.bottom - g.top;
  if (chest > 0 && (length >= DRESS_LENGTH * chest || (length >= FLARED_DRESS_LENGTH * chest && hem >= FLARE * chest))) return "dress";
  return undefined;
};

const unit = (p: Point): Point => {
  const n = Math.hypot(p.x, p.y) || 1;
  return { x: p.x / n, y: p.y / n };
};

/** The sleeve on one side, if the garment has one there; its pixels are labelled in `labels`. */
const sleeveOn = (g: GarmentShape, side: Sleeve["side"], labels: Uint8Array): Sleeve | undefined => {
  const { mask, width } = g;
  const bodyWidth = g.bodyRight - g.bodyLeft;
  // The window beside the body on this side, where a sleeve can be.
  const x0 = side === "left" ? g.left : g.bodyRight;
  const cw = (side === "left" ? g.bodyLeft : g.right) - x0;
  const ch = g.bottom - g.top;
  if (cw < MIN_SLEEVE_REACH * bodyWidth) return undefined;
  const outside = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) outside[y * cw + x] = mask[(y + g.top) * width + x + x0]! > 0 ? 1 : 0;
  const { labels: regionOf, regions } = labelRegions(outside, cw);
  const region = regions.find((r) => (side === "left" ? r.right === cw : r.left === 0) && r.top < ch / 2 && r.right - r.left >= MIN_SLEEVE_REACH * bodyWidth);
  if (region === undefined) return undefined;
  const inRegion = (x: number, y: number) => regionOf[(y - g.top) * cw + x - x0] === region.label;
  const bounds = { left: region.left + x0, top: region.top + g.top, right: region.right + x0, bottom: region.bottom + g.top };
  // The root: the sleeve's run along the body's side, from its top, at most MAX_ROOT long.
  const column = side === "left" ? g.bodyLeft - 1 : g.bodyRight;
  const edge = side === "left" ? g.bodyLeft : g.bodyRight;
  let rootStart = -1;
  let rootEnd = -1;
  for (let y = bounds.top; y < bounds.bottom; y++) {
    const inside = inRegion(column, y);
    if (inside && rootStart < 0) rootStart = y;
    if (rootStart >= 0 && (!inside || y - rootStart >= MAX_ROOT * bodyWidth)) break;
    if (inside) rootEnd = y + 1;
  }
  if (rootStart < 0) return undefined;
  const rootTop = { x: edge, y: rootStart };
  const rootBottom = { x: edge, y: rootEnd };
  const root = { x: edge, y: (rootStart + rootEnd) / 2 };
  const label = side === "left" ? PART.leftSleeve : PART.rightSleeve;
  // The cuff: the part of the outline that faces away from the root, well away from it. A first
  // axis, from the root to the centroid of the sleeve's farthest pixels, tells it from the
  // sleeve's sides (whose outward normals lie across that axis); the cuff's line is the principal axis of those
  // outline pixels, and its ends their extremes along it.
  let maxDistance2 = 0;
  for (let y = bounds.top; y < bounds.bottom; y++)
    for (let x = bounds.left; x < bounds.right; x++) {
      if (!inRegion(x, y)) continue;
      labels[y * width + x] = label;
      maxDistance2 = Math.max(maxDistance2, (x + 0.5 - root.x) ** 2 + (y + 0.5 - root.y) ** 2);
    }
  let fx = 0;
  let fy = 0;
  let farCount = 0;
  for (let y = bounds.top; y < bounds.bottom; y++)
    for (let x = bounds.left; x < bounds.right; x++)
      if (inRegion(x, y) && (x + 0.5 - root.x) ** 2 + (y + 0.5 - root.y) ** 2 >= 0.64 * maxDistance2) {
        fx += x + 0.5;
        fy += y + 0.5;
        farCount++;
      }
  const axis = unit({ x: fx / farCount - root.x, y: fy / farCount - root.y });
  const on = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < g.height && mask[y * width + x]! > 0;
  const cuffOutline: Array<Point> = [];
  for (let y = bounds.top; y < bounds.bottom; y++)
    for (let x = bounds.left; x < bounds.right; x++) {
      if (!inRegion(x, y) || (on(x - 1, y) && on(x + 1, y) && on(x, y - 1) && on(x, y + 1))) continue;
      // Near the root lies the armpit's corner, which may face the same way.
      if ((x + 0.5 - root.x) ** 2 + (y + 0.5 - root.y) ** 2 < CUFF_REACH * CUFF_REACH * maxDistance2) continue;
      // The outward normal: away from the garment pixels around.
      let nx = 0;
      let ny = 0;
      for (let dy = -NORMAL_REACH; dy <= NORMAL_REACH; dy++)
        for (let dx = -NORMAL_REACH; dx <= NORMAL_REACH; dx++)
          if (on(x + dx, y + dy)) {
            nx -= dx;
            ny -= dy;
          }
      const length = Math.hypot(nx, ny);
      if (length > 0 && (nx * axis.x + ny * axis.y) / length >= Math.SQRT1_2) cuffOutline.push({ x: x + 0.5, y: y + 0.5 });
    }
  if (cuffOutline.length < 2) return undefined;
  const mean = { x: cuffOutline.reduce((s, p) => s + p.x, 0) / cuffOutline.length, y: cuffOutline.reduce((s, p) => s + p.y, 0) / cuffOutline.length };
  let cxx = 0;
  let cyy = 0;
  let cxy = 0;
  for (const p of cuffOutline) {
    cxx += (p.x - mean.x) ** 2;
    cyy += (p.y - mean.y) ** 2;
    cxy += (p.x - mean.x) * (p.y - mean.y);
  }
  const theta = 0.5 * Math.atan2(2 * cxy, cxx - cyy);
  // Along the cuff, signed toward the shoulder's side of the sleeve (rootTop's).
  const line = (() => {
    const l = { x: Math.cos(theta), y: Math.sin(theta) };
    return (rootTop.x - mean.x) * l.x + (rootTop.y - mean.y) * l.y >= 0 ? l : { x: -l.x, y: -l.y };
  })();
  const along = (p: Point) => (p.x - mean.x) * line.x + (p.y - mean.y) * line.y;
  let outer = cuffOutline[0]!;
  let inner = cuffOutline[0]!;
  for (const p of cuffOutline) {
    if (along(p) > along(outer)) outer = p;
    if (along(p) < along(inner)) inner = p;
  }
  const cuff = { x: (outer.x + inner.x) / 2, y: (outer.y + inner.y) / 2 };
  return { side, label, bounds, rootTop, rootBottom, cuffOuter: outer, cuffInner: inner, cuff, length: Math.hypot(cuff.x - root.x, cuff.y - root.y) };
};

export const analyseGarment = (g: GarmentShape): GarmentAnalysis => {
  const refused = unplaceable(g);
  if (refused !== undefined) return { placeable: false, kind: refused };
  const labels = new Uint8Array(g.mask.length);
  for (let i = 0; i < labels.length; i++) if (g.mask[i]! > 0) labels[i] = PART.torso;
  const sleeves = (["left", "right"] as const).flatMap((side) => sleeveOn(g, side, labels) ?? []);
  let left = g.width;
  let top = g.height;
  let right = 0;
  let bottom = 0;
  for (let y = g.top; y < g.bottom; y++)
    for (let x = g.left; x < g.right; x++) {
      if (labels[y * g.width + x] !== PART.torso) continue;
      left = Math.min(left, x);
      right = Math.max(right, x + 1);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y + 1);
    }
  const bodyWidth = g.bodyRight - g.bodyLeft;
  const kind: GarmentKind =
    sleeves.length === 0 ? "sleeveless" : Math.max(...sleeves.map((s) => s.length)) >= LONG_SLEEVE * bodyWidth ? "long-sleeve" : "short-sleeve";
  return { placeable: true, parts: { kind, labels, torsoBounds: { left, top, right, bottom }, sleeves } };
};
