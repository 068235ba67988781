/**
 * Pixels decoded by our own readers (BMP, PNM), which libvips as sharp ships it cannot load:
 * 8 bits per sample, rows packed, top row first, handed to sharp as raw input.
 */
export interface RawRaster {
  readonly width: number;
  readonly height: number;
  /** 1: grey; 3: RGB. */
  readonly channels: 1 | 3;
  readonly pixels: Uint8Array;
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
