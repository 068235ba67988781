import { describe, expect, it } from "vitest";
import { CANVASES, coarsePlacement, detectionSize, finePlacement, placedSize } from "../../src/adapters/faces/blazeface-canvases.ts";
import { COARSE_SIDE, FINE_SIDE } from "../../src/adapters/faces/blazeface-decoding.ts";
import type { Size } from "../../src/domain/crop-window.ts";

/** Photo sizes from thumbnails to panoramas, both ways round. */
const SIZES: ReadonlyArray<Size> = [
  [64, 48],
  [300, 200],
  [384, 384],
  [512, 512],
  [1000, 300],
  [1080, 1080],
  [1080, 1350],
  [1620, 1080],
  [1944, 1080],
  [2314, 1080],
  [2531, 1080],
  [3000, 2000],
  [4032, 3024],
  [6000, 1000],
].flatMap(([w, h]) => [
  { width: w!, height: h! },
  { width: h!, height: w! },
]);

const isCanvas = ([w, h]: readonly [number, number]) => CANVASES.some(([cw, ch]) => cw === w && ch === h);

describe("face detection canvases", () => {
  it("sends the thread what the fine run reads as it is: placed again, the same canvas at scale 1", () => {
    for (const size of SIZES) {
      const sent = detectionSize(size);
      const again = finePlacement(sent);
      expect(again.canvas, `${size.width}×${size.height}`).toEqual(finePlacement(size).canvas);
      expect(placedSize(sent, again), `${size.width}×${size.height}`).toEqual(sent);
      // Never enlarged, and the shorter side at the fine side unless the photo is smaller or a panorama.
      expect(sent.width <= size.width && sent.height <= size.height).toBe(true);
      const long = Math.max(size.width, size.height) * Math.min(1, FINE_SIDE / Math.min(size.width, size.height));
      if (Math.min(size.width, size.height) >= FINE_SIDE && long <= 2 * FINE_SIDE) expect(Math.min(sent.width, sent.height)).toBe(FINE_SIDE);
    }
  });

  it("puts the coarse run on the smallest of its canvases that holds the photo at the coarse side", () => {
    for (const size of SIZES) {
      const placement = coarsePlacement(size);
      const placed = placedSize(size, placement);
      const [w, h] = placement.canvas;
      expect(isCanvas(placement.canvas), `${size.width}×${size.height}`).toBe(true);
      expect(Math.max(placed.width, placed.height)).toBe(COARSE_SIDE);
      expect(placed.width <= w && placed.height <= h, `${size.width}×${size.height}`).toBe(true);
      // No smaller canvas of the same orientation would hold it.
      const smaller = CANVASES.filter(([cw, ch]) => Math.max(cw, ch) === COARSE_SIDE && cw * ch < w * h && placed.width <= cw && placed.height <= ch);
      expect(smaller, `${size.width}×${size.height}`).toEqual([]);
    }
  });
});
