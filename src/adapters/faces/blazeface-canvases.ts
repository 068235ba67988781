import type { Size } from "../../domain/crop-window.ts";
import { COARSE_SIDE, FINE_SIDE } from "./blazeface-decoding.ts";

/**
 * onnxruntime plans a graph of fixed input size once (a third less CPU per run than a free size),
 * so each scale pads the photo onto one of a few canvases, each with its session: the shorter side
 * at FINE_SIDE and the longer side at the next of FINE_LONG_SIDES (a panorama beyond the last is
 * scaled to fit it), or the longer side at COARSE_SIDE and the shorter at the next of
 * COARSE_SHORT_SIDES: a 3:2 photo's coarse run on a square canvas computed a third of black, a
 * panorama's half (the coarse run ~4.8 ms on 256×256, ~2.4 on 256×128, one core, unloaded).
 */
const FINE_LONG_SIDES = [FINE_SIDE, 1.5 * FINE_SIDE, 2 * FINE_SIDE] as const;
const COARSE_SHORT_SIDES = [COARSE_SIDE / 2, (3 * COARSE_SIDE) / 4, COARSE_SIDE] as const;
const bothWays = (long: number, short: number) => (long === short ? [[long, short] as const] : [[long, short] as const, [short, long] as const]);
export const COARSE_CANVASES: ReadonlyArray<readonly [number, number]> = COARSE_SHORT_SIDES.flatMap((short) => bothWays(COARSE_SIDE, short));
export const CANVASES: ReadonlyArray<readonly [number, number]> = [...COARSE_CANVASES, ...FINE_LONG_SIDES.flatMap((long) => bothWays(long, FINE_SIDE))];

/** The scale and the canvas (width, height) of one run over an image. */
export interface Placement {
  readonly scale: number;
  readonly canvas: readonly [number, number];
}

export const finePlacement = ({ width, height }: Size): Placement => {
  const [short, long] = [Math.min(width, height), Math.max(width, height)];
  const wanted = Math.min(1, FINE_SIDE / short);
  const side = FINE_LONG_SIDES.find((candidate) => long * wanted <= candidate) ?? 2 * FINE_SIDE;
  const scale = Math.min(wanted, side / long);
  return { scale, canvas: width >= height ? [side, FINE_SIDE] : [FINE_SIDE, side] };
};

export const coarsePlacement = ({ width, height }: Size): Placement => {
  const scale = COARSE_SIDE / Math.max(width, height);
  const short = COARSE_SHORT_SIDES.find((side) => Math.min(width, height) * scale <= side) ?? COARSE_SIDE;
  return { scale, canvas: width >= height ? [COARSE_SIDE, short] : [short, COARSE_SIDE] };
};

/** The image as a run at `placement` reads it: scaled, at most its canvas. */
export const placedSize = ({ width, height }: Size, { scale, canvas: [canvasWidth, canvasHeight] }: Placement): Size => ({
  width: Math.min(canvasWidth, Math.max(1, Math.round(width * scale))),
  height: Math.min(canvasHeight, Math.max(1, Math.round(height * scale))),
});

/**
 * The pixels detection needs of an image: those of its fine run. At this size the fine run reads
 * them as they are (placed again, they fill the same canvas at scale 1), and the coarse run shrinks them.
 */
export const detectionSize = (image: Size): Size => placedSize(image, finePlacement(image));
