import type { ProbabilityMap } from "../segmentation/selfie-segmentation-model.ts";
import { rgbWithinRange } from "./colour-range.ts";
import type { FaceSkin } from "./face-skin.ts";
import type { Box } from "./garment/garment-fit.ts";

/**
 * What the skin painted over old clothes shares (neck-skin.ts above the neckline, arm-skin.ts below
 * the sleeves): the garment layer at the working resolution, straight RGBA, which the paint goes
 * under; the maps read at a working pixel; the test of a pixel for clothes; the box painted.
 */
export interface GarmentLayer {
  readonly rgba: Uint8Array;
  readonly width: number;
  readonly height: number;
}

/** The garment is solid from this alpha on: above it, skin is painted under its edge. */
export const SOLID = 250;

/**
 * A probability map's value under a working pixel's centre, interpolated between the map's four
 * nearest cells: the maps are coarser than the photo (the silhouette's cells are 3 px of a 768 px
 * photo), and the nearest cell alone drew the paint's edge in steps of that size.
 */
export const sampler = (map: ProbabilityMap, width: number, height: number) => {
  const sx = map.width / width;
  const sy = map.height / height;
  const { values } = map;
  const last = { x: map.width - 1, y: map.height - 1 };
  return (x: number, y: number) => {
    const fx = Math.min(last.x, Math.max(0, (x + 0.5) * sx - 0.5));
    const fy = Math.min(last.y, Math.max(0, (y + 0.5) * sy - 0.5));
    const x0 = Math.floor(fx);
    const y0 = Math.floor(fy);
    const x1 = Math.min(last.x, x0 + 1);
    const tx = fx - x0;
    const ty = fy - y0;
    const row0 = y0 * map.width;
    const row1 = Math.min(last.y, y0 + 1) * map.width;
    const top = values[row0 + x0]! * (1 - tx) + values[row0 + x1]! * tx;
    const bottom = values[row1 + x0]! * (1 - tx) + values[row1 + x1]! * tx;
    return top * (1 - ty) + bottom * ty;
  };
};

export const ramp = (v: number, from: number, to: number) => Math.min(1, Math.max(0, (v - from) / (to - from)));

/**
 * How much a pixel is clothes rather than the wearer's skin: 0 for skin in the face's light or in
 * shadow (face-skin.ts), else how far its colour lies outside the face's range.
 */
export const clothesShare = (skin: FaceSkin, r: number, g: number, b: number): number =>
  skin.inAnyLight(r, g, b) ? 0 : 1 - rgbWithinRange(skin.range, r, g, b);

/**
 * Paints skin of `tone × shade` at `paint` (0-1) into the layer's pixel `i`, under what the garment
 * already has there: the garment over the skin over the photo.
 */
export const paintUnder = (layer: GarmentLayer, i: number, tone: FaceSkin["tone"], shade: number, paint: number): void => {
  const { rgba } = layer;
  const under = 4 * i;
  const over = rgba[under + 3]! / 255;
  const alpha = over + paint * (1 - over);
  for (let c = 0; c < 3; c++) rgba[under + c] = Math.round((rgba[under + c]! * over + tone[c]! * shade * paint * (1 - over)) / alpha);
  rgba[under + 3] = Math.round(alpha * 255);
};

/** The box around the pixels painted, grown as they are. */
export const paintedBox = (width: number, height: number) => {
  const box = { left: width, top: height, right: 0, bottom: 0 };
  return {
    add: (x: number, y: number) => {
      box.left = Math.min(box.left, x);
      box.right = Math.max(box.right, x + 1);
      box.top = Math.min(box.top, y);
      box.bottom = Math.max(box.bottom, y + 1);
    },
    /** Undefined when nothing was painted. */
    box: (): Box | undefined => (box.right > box.left ? { ...box } : undefined),
  };
};
