import sharp from "sharp";
import type { TryOnSettings } from "../../domain/tryon-settings.ts";
import type { RawImage } from "../image/raw-decoding.ts";
import { planar } from "./planar-tensors.ts";

/** The backdrop each background style asks for, as planes at the person photo's working size. */
export const backgroundFor = async (style: TryOnSettings["backgroundStyle"], person: RawImage, personPlanar: Float32Array): Promise<Float32Array> => {
  const { width, height } = person;
  const n = width * height;
  switch (style) {
    case "white":
      return new Float32Array(3 * n).fill(1);
    case "studio": {
      // A grey backdrop, lighter behind the head, darker toward the floor.
      const out = new Float32Array(3 * n);
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          const dx = (x - width / 2) / width;
          const v = 0.93 - 0.15 * (y / height) - 0.1 * dx * dx;
          out[y * width + x] = v;
          out[n + y * width + x] = v;
          out[2 * n + y * width + x] = v * 1.01;
        }
      return out;
    }
    case "blur": {
      const blurred = await sharp(person.data, { raw: { width, height, channels: person.channels } })
        .blur(Math.max(2, 0.02 * Math.max(width, height)))
        .raw()
        .toBuffer();
      return planar({ ...person, data: new Uint8Array(blurred.buffer, blurred.byteOffset, blurred.byteLength) });
    }
    case "original":
    case "transparent":
      return personPlanar;
  }
};
