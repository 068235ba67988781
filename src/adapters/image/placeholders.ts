import { encode as blurhash } from "blurhash";
import sharp, { type Sharp } from "sharp";
import { rgbaToThumbHash } from "thumbhash";
import type { Placeholder } from "../../ports/engines/image.ts";
import type { Raster } from "./raster.ts";
import { open } from "./sharp-template-steps.ts";

/**
 * What a page shows while the result loads, from the result shrunk by libvips: a BlurHash (4×3
 * components, from 16×16 at most: its blur shows no more detail; transparency shown on white,
 * as BlurHash has no alpha) and a ThumbHash (from 32×32 at most; it keeps alpha and the aspect
 * ratio), base64. At those sizes the encoders take about 0.3 and 0.1 ms, so they run where the
 * result is: on the event loop.
 */
const BLURHASH_SIDE = 16;
const THUMBHASH_SIDE = 32;

const shrink = async (source: Sharp, side: number, flatten: boolean) => {
  const small = source.resize(side, side, { fit: "inside" });
  const { data, info } = await (flatten ? small.flatten({ background: "#ffffff" }) : small).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
};

const placeholderFrom = async (source: () => Sharp): Promise<Placeholder> => {
  const [opaque, clear] = await Promise.all([shrink(source(), BLURHASH_SIDE, true), shrink(source(), THUMBHASH_SIDE, false)]);
  return {
    blurhash: blurhash(opaque.rgba, opaque.width, opaque.height, 4, 3),
    thumbhash: Buffer.from(rgbaToThumbHash(clear.width, clear.height, clear.rgba)).toString("base64"),
  };
};

export const placeholderOf = (raster: Raster): Promise<Placeholder> => placeholderFrom(() => open(raster));

/**
 * The same from the encoded result, where no raster of it was kept: a JPEG or WebP is shrunk on
 * load (an eighth of the pixels decoded), so this costs about what the raster's shrinks do.
 */
export const placeholderOfEncoded = (bytes: Buffer): Promise<Placeholder> => placeholderFrom(() => sharp(bytes, { failOn: "error" }));
