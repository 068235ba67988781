import type { AppliedFocus, Box, Face } from "../domain/crop-window.ts";

/** Image values that cross the ports. */
export type ImageFormat = "jpeg" | "png" | "webp" | "avif" | "gif" | "tiff";

/** Bytes that an inspector has accepted: a known raster format, within the pixel limit. */
export interface ValidatedImage {
  readonly bytes: Uint8Array;
  readonly format: ImageFormat;
  /** Size as displayed, after EXIF orientation. */
  readonly width: number;
  readonly height: number;
}

/**
 * How a template that crops to fill placed its window, in the uploaded image's pixels (after EXIF
 * orientation): the window, what placed it, and the faces found (none unless the focus looks for them).
 */
export interface Framing {
  readonly crop: Box & { readonly by: AppliedFocus };
  readonly faces: ReadonlyArray<Face>;
}

export interface RenderedImage {
  /** Templates that crop to fill only. */
  readonly framing?: Framing;
  readonly bytes: Uint8Array;
  readonly format: "jpeg" | "png" | "webp" | "avif";
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
}
