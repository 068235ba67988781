import type { Keypoint, Point } from "../../ports/engines/tryon-engine.ts";
import type { RawImage } from "../image/raw-decoding.ts";
import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import { type ColourRange, gridColour, withinRange } from "./colour-range.ts";
import { MIN_KEYPOINT_SCORE, type Torso } from "./torso.ts";

/**
 * Hands, and what two hands hold, in front of the torso, which the garment goes behind. The arm
 * capsules (arms.ts) need a seen elbow and wrist; on a portrait the elbows are often out of the
 * photo and the wrists seen faintly (MoveNet scores 0.1-0.3 for hands holding a cup at the photo's
 * bottom edge). Here a wrist counts from a lower score, and around it the hand is the skin: the
 * cells whose colour is that of the middle of the face (face-skin.ts). Two hands close together
 * in front of the torso hold something between them (a cup, a camera, a phone): the space between
 * them, and above them as far as the hands are apart, is kept in front as well. Computed on the
 * hair map's grid, as the hair in front is.
 */
const MIN_WRIST_SCORE = 0.1;
/**
 * A wrist read so faintly may be anywhere (on a dark top, in the hair): it counts only where this
 * share of the cells within WRIST_SKIN_RADIUS of it are skin-coloured, as around a hand they are.
 */
const WRIST_SKIN_SHARE = 0.3;
const WRIST_SKIN_RADIUS = 0.1;
/** How far from a wrist (shares of the shoulder width) its hand's skin is looked for. */
const HAND_REACH = 0.35;
/**
 * Two wrists at most this far apart (shares of the shoulder width), both at least BELOW_SHOULDERS
 * below the shoulder line, and no elbow seen, hold something together in front of the torso. Hands
 * raised to the face (holding a camera) hold nothing the garment reaches; with an elbow seen, the
 * arm capsules (arms.ts) keep the arms, and wrists close together are more likely a forearm across
 * the body than hands around an object.
 */
const TOGETHER = 1.2;
const BELOW_SHOULDERS = 0.3;
/** What two hands hold: a capsule between the wrists this thick, and one above their middle. */
const HELD_RADIUS = 0.15;
const HELD_RISE = 0.3;

/** The hair map's grid: its size, a cell's size in the photo's pixels, and a cell's centre there. */
interface Grid {
  readonly width: number;
  readonly height: number;
  readonly sx: number;
  readonly sy: number;
  readonly at: (i: number) => Point;
}

/** Calls `visit` with each cell whose centre lies within `r` photo pixels of `centre`. */
const forCellsWithin = (grid: Grid, centre: Point, r: number, visit: (i: number) => void): void => {
  const { width, height, sx, sy, at } = grid;
  for (let y = Math.max(0, Math.floor((centre.y - r) / sy)); y < Math.min(height, Math.ceil((centre.y + r) / sy)); y++)
    for (let x = Math.max(0, Math.floor((centre.x - r) / sx)); x < Math.min(width, Math.ceil((centre.x + r) / sx)); x++) {
      const p = at(y * width + x);
      if (Math.hypot(p.x - centre.x, p.y - centre.y) <= r) visit(y * width + x);
    }
};

const distanceToSegment = (p: Point, a: Point, b: Point): number => {
  const abx = b.x - a.x;
  const aby = b.y - a.y;
  const length2 = abx * abx + aby * aby;
  const t = length2 === 0 ? 0 : Math.min(1, Math.max(0, ((p.x - a.x) * abx + (p.y - a.y) * aby) / length2));
  return Math.hypot(p.x - a.x - t * abx, p.y - a.y - t * aby);
};

export const handsInFront = (
  hair: ProbabilityMap,
  image: RawImage,
  keypoints: ReadonlyArray<Keypoint>,
  torso: Torso,
  /** The wearer's skin (face-skin.ts); undefined when the face showed too little of it. */
  skin: ColourRange | undefined,
): ProbabilityMap => {
  const { width, height } = hair;
  const values = new Float32Array(width * height);
  const sx = image.width / width;
  const sy = image.height / height;
  const at = (i: number): Point => ({ x: ((i % width) + 0.5) * sx, y: (Math.floor(i / width) + 0.5) * sy });
  const colour = gridColour(image, hair);
  const { shoulderWidth } = torso;
  if (skin === undefined) return { values, width, height };
  const grid: Grid = { width, height, sx, sy, at };
  const onSkin = (wrist: Point): boolean => {
    let cells = 0;
    let skinCells = 0;
    forCellsWithin(grid, wrist, WRIST_SKIN_RADIUS * shoulderWidth, (i) => {
      cells++;
      skinCells += withinRange(skin, colour, i) >= 0.5 ? 1 : 0;
    });
    return cells > 0 && skinCells >= WRIST_SKIN_SHARE * cells;
  };
  const wrists = keypoints.filter((k) => k.name.endsWith("_wrist") && k.score >= MIN_WRIST_SCORE && onSkin(k));
  if (wrists.length === 0) return { values, width, height };

  const reach = HAND_REACH * shoulderWidth;
  const [a, b] = wrists;
  const shoulderMiddle = { x: (torso.shoulders[0].x + torso.shoulders[1].x) / 2, y: (torso.shoulders[0].y + torso.shoulders[1].y) / 2 };
  const below = (p: Point) => (p.x - shoulderMiddle.x) * torso.down.x + (p.y - shoulderMiddle.y) * torso.down.y >= BELOW_SHOULDERS * shoulderWidth;
  const elbowSeen = keypoints.some((k) => k.name.endsWith("_elbow") && k.score >= MIN_KEYPOINT_SCORE);
  const together = !elbowSeen && a !== undefined && b !== undefined && below(a) && below(b) && Math.hypot(a.x - b.x, a.y - b.y) <= TOGETHER * shoulderWidth;
  if (together) {
    const middle = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    const apart = Math.hypot(a.x - b.x, a.y - b.y);
    const above = { x: middle.x - torso.down.x * HELD_RISE * shoulderWidth, y: middle.y - torso.down.y * HELD_RISE * shoulderWidth };
    // Only the cells within reach of what the two hands hold are visited.
    const held = apart + (HELD_RADIUS + HELD_RISE) * shoulderWidth;
    const box = {
      left: Math.max(0, Math.floor((Math.min(a.x, b.x) - held) / sx)),
      right: Math.min(width, Math.ceil((Math.max(a.x, b.x) + held) / sx)),
      top: Math.max(0, Math.floor((Math.min(a.y, b.y) - held) / sy)),
      bottom: Math.min(height, Math.ceil((Math.max(a.y, b.y) + held) / sy)),
    };
    for (let y = box.top; y < box.bottom; y++)
      for (let x = box.left; x < box.right; x++) {
        const p = at(y * width + x);
        if (distanceToSegment(p, a, b) <= HELD_RADIUS * shoulderWidth || distanceToSegment(p, middle, above) <= apart / 2) values[y * width + x] = 1;
      }
  }
  handSkin(values, grid, wrists, { reach, seed: WRIST_SKIN_RADIUS * shoulderWidth }, (i) => withinRange(skin, colour, i));
  return { values, width, height };
};

/**
 * The hands' skin: skin-coloured cells within reach of a wrist that join it through skin. A floral
 * or pink top holds skin-coloured specks too; they lie apart from the hand, and stay behind the
 * garment. Grown from the skin cells around each wrist through cells at least half skin; the
 * fading cells bordering what was reached give the soft edge.
 */
const handSkin = (
  values: Float32Array,
  grid: Grid,
  wrists: ReadonlyArray<Point>,
  radii: { readonly reach: number; readonly seed: number },
  skinOf: (i: number) => number,
): void => {
  const { width, height, at } = grid;
  const { reach, seed } = radii;
  const inReach = (i: number) => {
    const p = at(i);
    return wrists.some((w) => Math.hypot(p.x - w.x, p.y - w.y) <= reach);
  };
  const reached = new Uint8Array(width * height);
  const queue: Array<number> = [];
  const visit = (i: number) => {
    if (reached[i] === 1 || skinOf(i) < 0.5 || !inReach(i)) return;
    reached[i] = 1;
    queue.push(i);
  };
  for (const w of wrists) forCellsWithin(grid, w, seed, visit);
  for (let k = 0; k < queue.length; k++) {
    const i = queue[k]!;
    const x = i % width;
    if (x > 0) visit(i - 1);
    if (x < width - 1) visit(i + 1);
    if (i >= width) visit(i - width);
    if (i < width * (height - 1)) visit(i + width);
  }
  for (const i of queue) {
    const x = i % width;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const j = i + dy * width + dx;
        if (x + dx < 0 || x + dx >= width || j < 0 || j >= width * height || values[j] === 1) continue;
        values[j] = Math.max(values[j]!, skinOf(j));
      }
  }
};
