import { encode as blurhash } from "blurhash";
import { rgbaToThumbHash } from "thumbhash";
import type { Placeholder } from "../../ports/image.ts";
import { open, type Raster } from "./sharp-template-steps.ts";

/**
 * What a page shows while the result loads, from the result shrunk by libvips to fit 32×32: a
 * BlurHash (4×3 components; transparency shown on white, as BlurHash has no alpha) and a
 * ThumbHash (which keeps alpha and the aspect ratio), base64. At that size both encoders take
 * a fraction of a millisecond, so they run where the result is: on the event loop.
 */
const SIDE = 32;

const shrink = async (raster: Raster, flatten: boolean) => {
  const small = open(raster).resize(SIDE, SIDE, { fit: "inside" });
  const { data, info } = await (flatten ? small.flatten({ background: "#ffffff" }) : small).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
};

export const placeholderOf = async (raster: Raster): Promise<Placeholder> => {
  const [opaque, clear] = await Promise.all([shrink(raster, true), shrink(raster, false)]);
  return {
    blurhash: blurhash(opaque.rgba, opaque.width, opaque.height, 4, 3),
    thumbhash: Buffer.from(rgbaToThumbHash(clear.width, clear.height, clear.rgba)).toString("base64"),
  };
};
