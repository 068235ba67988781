import sharp from "sharp";
import type { RawImage } from "../image/raw-decoding.ts";

/**
 * An image letterboxed into a segmentation model's square (stretching it misleads the models),
 * and the way back: the map cut to the image's own part of the square, so that it keeps the
 * image's aspect ratio.
 */
export interface Letterboxed {
  /** RGB bytes, size × size. */
  readonly rgb: Buffer;
  /** The image's part of the square. */
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export const letterbox = async (image: RawImage, size: number): Promise<Letterboxed> => {
  const scale = size / Math.max(image.width, image.height);
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const left = Math.floor((size - width) / 2);
  const top = Math.floor((size - height) / 2);
  const rgb = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
    .removeAlpha()
    .resize(width, height, { fit: "fill", kernel: "linear" })
    .extend({ left, top, right: size - width - left, bottom: size - height - top, background: { r: 0, g: 0, b: 0 } })
    .raw()
    .toBuffer();
  return { rgb, left, top, width, height };
};

/** A one-channel size × size map cut back to the letterboxed image's part, row-major. */
export const unletterbox = (square: Float32Array, size: number, box: Letterboxed): Float32Array => {
  const values = new Float32Array(box.width * box.height);
  for (let y = 0; y < box.height; y++) values.set(square.subarray((box.top + y) * size + box.left, (box.top + y) * size + box.left + box.width), y * box.width);
  return values;
};
