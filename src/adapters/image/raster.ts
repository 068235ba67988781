/**
 * Decoded pixels, the one form every adapter passes them in: 8 bits per sample, channels
 * interleaved (1 grey, 2 grey and alpha, 3 sRGB, 4 sRGB and alpha), rows packed, top row first,
 * at the displayed size. sharp takes it as raw input; `Channels` narrows what a producer makes.
 */
export interface Raster<Channels extends 1 | 2 | 3 | 4 = 1 | 2 | 3 | 4> {
  readonly data: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly channels: Channels;
}

/** A header read and bounded on the event loop; the per-pixel work waits for a thread. */
export type HeaderReading<H> = { readonly ok: true; readonly header: H } | { readonly ok: false; readonly message: string };

/** Side lengths beyond this are refused whatever the pixel limit: no real scan is that long. */
export const maxRasterSide = 100_000;

export const checkRasterSize = (what: string, width: number, height: number, maxPixels: number): string | undefined => {
  if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width < 1 || height < 1) return `the ${what} image has no pixels (${width}×${height})`;
  if (width > maxRasterSide || height > maxRasterSide || width * height > maxPixels) {
    return `the ${what} image is ${width}×${height}; the limit is ${Number((maxPixels / 1_000_000).toFixed(2))} megapixels`;
  }
  return undefined;
};
