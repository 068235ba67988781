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

export interface RenderedImage {
  readonly bytes: Uint8Array;
  readonly format: "jpeg" | "png" | "webp" | "avif";
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
}
