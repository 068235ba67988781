import { Effect, Layer } from "effect";
import sharp from "sharp";
import type { ImageFormat, ValidatedImage } from "../../ports/engines/image.ts";
import { ImageInspector, type ImageInspectorShape } from "../../ports/engines/image-inspector.ts";
import { InvalidImage } from "../../ports/errors.ts";
import { sniffImageFormat } from "./sniff-image-format.ts";
import { looksTruncated } from "./truncation-check.ts";

export interface SharpImageInspectorOptions {
  /** Largest accepted width × height (after EXIF orientation), default 40 megapixels. */
  readonly maxPixels?: number;
}

export const DEFAULT_MAX_PIXELS = 40_000_000;

/** The decoder libvips names for each accepted format (AVIF is HEIF with AV1 compression). */
const DECODER: Readonly<Record<ImageFormat, string>> = {
  jpeg: "jpeg",
  png: "png",
  webp: "webp",
  gif: "gif",
  tiff: "tiff",
  avif: "heif",
};

const NAME: Readonly<Record<ImageFormat, string>> = {
  jpeg: "JPEG",
  png: "PNG",
  webp: "WebP",
  gif: "GIF",
  tiff: "TIFF",
  avif: "AVIF",
};

/**
 * Signature allow-list, then the header read by libvips (no pixel decode), so that a
 * decompression bomb is refused in about a millisecond, before any engine allocates for it.
 */
export const makeSharpImageInspector = (options: SharpImageInspectorOptions = {}): ImageInspectorShape => {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  return {
    inspect: (bytes) =>
      Effect.gen(function* () {
        const sniffed = sniffImageFormat(bytes);
        if (!sniffed.accepted) return yield* new InvalidImage({ message: sniffed.message });
        const format = sniffed.format;
        const name = NAME[format];
        if (looksTruncated(bytes, format)) {
          return yield* new InvalidImage({ message: `the ${name} image is truncated or incomplete` });
        }
        const metadata = yield* Effect.tryPromise({
          // The pixel limit is ours to state in the error; libvips' own limit would only say "too large".
          try: () => sharp(bytes, { limitInputPixels: false }).metadata(),
          catch: () => new InvalidImage({ message: `the ${name} image is corrupt: its header cannot be read` }),
        });
        if (metadata.format !== DECODER[format] || (format === "avif" && metadata.compression !== "av1")) {
          return yield* new InvalidImage({ message: `the file starts like ${name} but is not a valid ${name} image` });
        }
        const { width, height } = metadata.autoOrient;
        if (!(width > 0 && height > 0)) {
          return yield* new InvalidImage({ message: `the ${name} image has no pixels (${width}×${height})` });
        }
        if (width * height > maxPixels) {
          return yield* new InvalidImage({
            message: `the image is ${width}×${height} (${megapixels(width * height)} megapixels); the limit is ${megapixels(maxPixels)} megapixels`,
          });
        }
        const validated: ValidatedImage = { bytes, format, width, height };
        return validated;
      }),
  };
};

const megapixels = (pixels: number): string => String(Number((pixels / 1_000_000).toFixed(2)));

export const sharpImageInspectorLayer = (options: SharpImageInspectorOptions = {}) => Layer.succeed(ImageInspector)(makeSharpImageInspector(options));
