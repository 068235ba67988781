import sharp from "sharp";
import type { Raster } from "./raster.ts";

/** Decoded pixels in colour, EXIF orientation applied: what the try-on's models read. */
export type RawImage = Raster<3 | 4>;

/**
 * Decodes the first frame of any sharp-readable image to RGB, or RGBA when `alpha` is asked;
 * `maxSide` shrinks (never enlarges) it to fit.
 */
export const decodeRaw = async (bytes: Uint8Array, alpha: boolean, maxSide?: number): Promise<RawImage> => {
  const oriented = sharp(bytes, { failOn: "error" }).rotate();
  const pipeline = maxSide === undefined ? oriented : oriented.resize(maxSide, maxSide, { fit: "inside", withoutEnlargement: true });
  const { data, info } = await (alpha ? pipeline.ensureAlpha() : pipeline.removeAlpha()).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, channels: alpha ? 4 : 3 };
};

/** Resizes raw pixels (any channel count) to an exact size, stretching. */
export const resizeRaw = async (
  data: Uint8Array,
  width: number,
  height: number,
  channels: 1 | 3 | 4,
  to: { width: number; height: number },
): Promise<Uint8Array> => {
  const resized = sharp(data, { raw: { width, height, channels } }).resize(to.width, to.height, { fit: "fill", kernel: "linear" });
  // sharp widens single-channel raw input to sRGB unless told to keep one band.
  const out = await (channels === 1 ? resized.extractChannel(0) : resized).raw().toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
};
