import { encode as blurhash } from "blurhash";
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

const shrink = async (raster: Raster, side: number, flatten: boolean) => {
  const small = open(raster).resize(side, side, { fit: "inside" });
  const { data, info } = await (flatten ? small.flatten({ background: "#ffffff" }) : small).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
};

export const placeholderOf = async (raster: Raster): Promise<Placeholder> => {
  const [opaque, clear] = await Promise.all([shrink(raster, BLURHASH_SIDE, true), shrink(raster, THUMBHASH_SIDE, false)]);
  return {
    blurhash: blurhash(opaque.rgba, opaque.width, opaque.height, 4, 3),
    thumbhash: Buffer.from(rgbaToThumbHash(clear.width, clear.height, clear.rgba)).toString("base64"),
  };
};
