import type { AppliedFocus, Box, Face } from "../../domain/crop-window.ts";

/** Image values that cross the ports. */
export type ImageFormat = "jpeg" | "png" | "webp" | "avif" | "gif" | "tiff";

/** Bytes that an inspector has accepted: a known raster format, within the pixel limit. */
/** A rendered template: the image, its placeholder, and for crops to fill, how it was framed. */
export interface RenderedTemplate extends RenderedImage {
  readonly placeholder: Placeholder;
  readonly framing?: Framing;
}

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

/** Strings a page turns into a blurred preview while the image loads. */
export interface Placeholder {
  readonly blurhash: string;
  /** base64 */
  readonly thumbhash: string;
}

export interface RenderedImage {
  readonly bytes: Uint8Array;
  readonly format: "jpeg" | "png" | "webp" | "avif";
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
}
