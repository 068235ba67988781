import type { RawImage } from "../../image/raw-decoding.ts";
import { labelRegions } from "../regions.ts";

/**
 * Finds the garment in a product shot: the image's own transparency when it has some, else
 * everything that differs from the backdrop colour (read from the border). The largest region
 * is kept and its holes filled, so a print or a pattern on the garment stays part of it.
 */
export interface GarmentShape {
  /** width × height, 1 = garment. */
  readonly mask: Uint8Array;
  readonly width: number;
  readonly height: number;
  /** The garment's extent (sleeves included): left, top inclusive; right, bottom exclusive. */
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  /** The body's sides (sleeves excluded), measured on the lower part of the garment. */
  readonly bodyLeft: number;
  readonly bodyRight: number;
  /** Garment area over image area. */
  readonly coverage: number;
}

export type GarmentDetection = { readonly found: true; readonly garment: GarmentShape } | { readonly found: false; readonly reason: string };

const BACKDROP_DISTANCE = 40;
const MIN_COVERAGE = 0.03;
const MAX_COVERAGE = 0.95;
const MIN_UNIFORM_BORDER = 0.6;

const median = (values: Array<number>): number => {
  values.sort((a, b) => a - b);
  return values[values.length >> 1] ?? 0;
};

/** Keeps only the largest connected region. */
const largestRegion = (on: Uint8Array, width: number): Uint8Array => {
  const { labels, regions } = labelRegions(on, width);
  const best = regions[0]?.label ?? -2;
  const kept = new Uint8Array(labels.length);
  for (let i = 0; i < labels.length; i++) kept[i] = labels[i] === best ? 1 : 0;
  return kept;
};

/** Fills holes: off pixels that the border cannot reach through off pixels become on. */
const fillHoles = (on: Uint8Array, width: number, height: number): Uint8Array => {
  const n = on.length;
  const outside = new Uint8Array(n);
  const stack = new Int32Array(n);
  let depth = 0;
  const seed = (i: number) => {
    if (!on[i] && !outside[i]) {
      outside[i] = 1;
      stack[depth++] = i;
    }
  };
  for (let x = 0; x < width; x++) {
    seed(x);
    seed((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    seed(y * width);
    seed(y * width + width - 1);
  }
  while (depth > 0) {
    const i = stack[--depth]!;
    const x = i % width;
    if (x > 0) seed(i - 1);
    if (x < width - 1) seed(i + 1);
    if (i >= width) seed(i - width);
    if (i < n - width) seed(i + width);
  }
  const filled = new Uint8Array(n);
  for (let i = 0; i < n; i++) filled[i] = outside[i] ? 0 : 1;
  return filled;
};

const foreground = (image: RawImage): { on: Uint8Array } | { reason: string } => {
  const { data, width, height, channels } = image;
  const pixels = width * height;
  const on = new Uint8Array(pixels);
  if (channels === 4) {
    let transparent = 0;
    for (let i = 0; i < pixels; i++) {
      const opaque = data[4 * i + 3]! >= 128;
      on[i] = opaque ? 1 : 0;
      if (!opaque) transparent++;
    }
    if (transparent >= 0.02 * pixels) return { on };
  }
  const border: Array<number> = [];
  for (let x = 0; x < width; x++) border.push(x, (height - 1) * width + x);
  for (let y = 1; y < height - 1; y++) border.push(y * width, y * width + width - 1);
  const [r, g, b] = [0, 1, 2].map((c) => median(border.map((i) => data[channels * i + c]!))) as [number, number, number];
  const limit = BACKDROP_DISTANCE * BACKDROP_DISTANCE;
  for (let i = 0, p = 0; i < pixels; i++, p += channels) {
    const dr = data[p]! - r;
    const dg = data[p + 1]! - g;
    const db = data[p + 2]! - b;
    on[i] = dr * dr + dg * dg + db * db > limit ? 1 : 0;
  }
  const uniform = border.filter((i) => !on[i]).length / border.length;
  if (uniform < MIN_UNIFORM_BORDER) return { reason: "the clothing image has no plain backdrop or transparency to separate the garment from" };
  return { on };
};

export const detectGarment = (image: RawImage): GarmentDetection => {
  const { width, height } = image;
  const fg = foreground(image);
  if ("reason" in fg) return { found: false, reason: fg.reason };
  const on = fillHoles(largestRegion(fg.on, width), width, height);
  let area = 0;
  let top = height;
  let bottom = -1;
  let left = width;
  let right = -1;
  for (let i = 0; i < on.length; i++) {
    if (!on[i]) continue;
    area++;
    const x = i % width;
    const y = (i - x) / width;
    top = Math.min(top, y);
    bottom = Math.max(bottom, y);
    left = Math.min(left, x);
    right = Math.max(right, x);
  }
  const coverage = area / on.length;
  if (coverage < MIN_COVERAGE) return { found: false, reason: "no garment found in the clothing image" };
  if (coverage > MAX_COVERAGE) return { found: false, reason: "the garment cannot be told apart from the clothing image's backdrop" };
  // The body's sides: median extents over the lower 60-95 % of the garment, below the sleeves,
  // of the run through the garment's centre line (long sleeves may hang beside the body there).
  const lefts: Array<number> = [];
  const rights: Array<number> = [];
  const centre = (left + right) >> 1;
  for (let y = Math.round(top + 0.6 * (bottom - top)); y <= Math.round(top + 0.95 * (bottom - top)); y++) {
    const row = y * width;
    let l = centre;
    let r = centre;
    if (on[row + centre]) {
      while (l > 0 && on[row + l - 1]) l--;
      while (r < width - 1 && on[row + r + 1]) r++;
    } else {
      // No run there (a gap between legs): the row's extremes.
      l = -1;
      for (let x = 0; x < width; x++) {
        if (on[row + x]) {
          if (l < 0) l = x;
          r = x;
        }
      }
      if (l < 0) continue;
    }
    lefts.push(l);
    rights.push(r);
  }
  const bodyLeft = median(lefts);
  const bodyRight = median(rights) + 1;
  if (bodyRight - bodyLeft < 0.1 * width) return { found: false, reason: "no garment found in the clothing image" };
  return {
    found: true,
    garment: { mask: on, width, height, left, right: right + 1, top, bottom: bottom + 1, bodyLeft, bodyRight, coverage },
  };
};
