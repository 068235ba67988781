import { encode as blurhash } from "blurhash";
import sharp, { type Sharp } from "sharp";
import { rgbaToThumbHash } from "thumbhash";
import type { Placeholder } from "../../ports/engines/image.ts";
import type { Raster } from "./raster.ts";
import { open } from "./sharp-template-steps.ts";

/**
 * What a page shows while the result loads, from the result shrunk once by libvips to 32×32 at
 * most: a ThumbHash of that (it keeps alpha and the aspect ratio), base64, and a BlurHash (4×3
 * components) of it halved again with transparency shown on white (BlurHash has no alpha; its
 * blur shows no more detail than 16×16). One libvips pipeline, not one per hash: each costs
 * ~1.5 ms of thread hand-offs before a pixel is read, and from an encoded result each decodes it.
 * At these sizes the halving and the encoders take well under a millisecond, so they run where
 * the result is: on the event loop.
 */
const SIDE = 32;

interface Rgba {
  readonly rgba: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
}

/** Each 2×2 block's mean (a last odd row or column averages what it has), composited on white. */
export const halvedOnWhite = ({ rgba, width, height }: Rgba): Rgba => {
  const halfWidth = Math.ceil(width / 2);
  const halfHeight = Math.ceil(height / 2);
  const out = new Uint8ClampedArray(halfWidth * halfHeight * 4);
  for (let y = 0; y < halfHeight; y++)
    for (let x = 0; x < halfWidth; x++) {
      let red = 0;
      let green = 0;
      let blue = 0;
      let count = 0;
      for (let dy = 0; dy < 2 && 2 * y + dy < height; dy++)
        for (let dx = 0; dx < 2 && 2 * x + dx < width; dx++) {
          const at = ((2 * y + dy) * width + 2 * x + dx) * 4;
          const alpha = rgba[at + 3]! / 255;
          const white = 255 * (1 - alpha);
          red += rgba[at]! * alpha + white;
          green += rgba[at + 1]! * alpha + white;
          blue += rgba[at + 2]! * alpha + white;
          count++;
        }
      const to = (y * halfWidth + x) * 4;
      out[to] = red / count;
      out[to + 1] = green / count;
      out[to + 2] = blue / count;
      out[to + 3] = 255;
    }
  return { rgba: out, width: halfWidth, height: halfHeight };
};

/** The placeholder of an image libvips is about to produce (a pipeline not yet run). */
export const placeholderOfImage = async (source: Sharp): Promise<Placeholder> => {
  const { data, info } = await source.resize(SIDE, SIDE, { fit: "inside" }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const small: Rgba = { rgba: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  const opaque = halvedOnWhite(small);
  return {
    blurhash: blurhash(opaque.rgba, opaque.width, opaque.height, 4, 3),
    thumbhash: Buffer.from(rgbaToThumbHash(small.width, small.height, small.rgba)).toString("base64"),
  };
};

export const placeholderOf = (raster: Raster): Promise<Placeholder> => placeholderOfImage(open(raster));

/**
 * The same from the encoded result, where no raster of it was kept: a JPEG or WebP is shrunk on
 * load (an eighth of the pixels decoded), so this costs little more than the raster's shrink.
 */
export const placeholderOfEncoded = (bytes: Buffer): Promise<Placeholder> => placeholderOfImage(sharp(bytes, { failOn: "error" }));
