import type { Capsule } from "../arms.ts";
import { type Box, boxAround } from "./garment-fit.ts";

/**
 * The warped parts of a garment laid into one layer, each over the ones before it, and each held
 * behind the arm parts that are in front of it (a forearm across the torso shows over the panel;
 * a hand over any part). Runs in the try-on thread: it touches only the garment's boxes.
 */
export interface WarpedPart {
  /** Premultiplied RGBA, planar [4, box height, box width]. */
  readonly data: Float32Array;
  readonly box: Box;
  /** The arm parts in front of this one. */
  readonly behind: ReadonlyArray<Capsule>;
}

/**
 * How much of each pixel of `box` is clear of the capsules (row-major over the box): 0 inside,
 * 1 outside, a one-pixel ramp at their edge. Each capsule touches only its own bounding box.
 */
export const clearance = (box: Box, capsules: ReadonlyArray<Capsule>): Float32Array => {
  const width = box.right - box.left;
  const out = new Float32Array(width * (box.bottom - box.top)).fill(1);
  for (const { a, b, radius } of capsules) {
    const reach = radius + 1;
    const left = Math.max(box.left, Math.floor(Math.min(a.x, b.x) - reach));
    const right = Math.min(box.right, Math.ceil(Math.max(a.x, b.x) + reach));
    const top = Math.max(box.top, Math.floor(Math.min(a.y, b.y) - reach));
    const bottom = Math.min(box.bottom, Math.ceil(Math.max(a.y, b.y) + reach));
    const abx = b.x - a.x;
    const aby = b.y - a.y;
    const length2 = abx * abx + aby * aby;
    const far2 = (radius + 0.5) * (radius + 0.5);
    for (let y = top; y < bottom; y++) {
      const py = y + 0.5 - a.y;
      for (let x = left; x < right; x++) {
        const px = x + 0.5 - a.x;
        const t = length2 === 0 ? 0 : Math.min(1, Math.max(0, (px * abx + py * aby) / length2));
        const dx = px - t * abx;
        const dy = py - t * aby;
        const d2 = dx * dx + dy * dy;
        if (d2 >= far2) continue;
        const i = (y - box.top) * width + (x - box.left);
        const clear = Math.max(0, Math.sqrt(d2) - radius + 0.5);
        if (clear < out[i]!) out[i] = clear;
      }
    }
  }
  return out;
};

/** The parts, in order (later ones on top), in their union box: planar premultiplied RGBA. */
export const layParts = (parts: ReadonlyArray<WarpedPart>): { readonly data: Float32Array; readonly box: Box } => {
  // Called with at least one part (tryon-pipeline.ts).
  const box = boxAround(parts.map((p) => p.box))!;
  const width = box.right - box.left;
  const n = width * (box.bottom - box.top);
  const out = new Float32Array(4 * n);
  for (const part of parts) {
    const pw = part.box.right - part.box.left;
    const ph = part.box.bottom - part.box.top;
    const pn = pw * ph;
    const keep = clearance(part.box, part.behind);
    const { data } = part;
    for (let y = 0; y < ph; y++) {
      const o0 = (y + part.box.top - box.top) * width + part.box.left - box.left;
      for (let x = 0; x < pw; x++) {
        const i = y * pw + x;
        const k = keep[i]!;
        const alpha = k * data[3 * pn + i]!;
        if (alpha <= 0) continue;
        const o = o0 + x;
        const below = 1 - alpha;
        out[o] = k * data[i]! + below * out[o]!;
        out[n + o] = k * data[pn + i]! + below * out[n + o]!;
        out[2 * n + o] = k * data[2 * pn + i]! + below * out[2 * n + o]!;
        out[3 * n + o] = alpha + below * out[3 * n + o]!;
      }
    }
  }
  return { data: out, box };
};
