import { decode as decodeBlurhash } from "blurhash";
import sharp from "sharp";
import { thumbHashToApproximateAspectRatio, thumbHashToRGBA } from "thumbhash";
import { describe, expect, it } from "vitest";
import { halvedOnWhite, placeholderOf, placeholderOfEncoded } from "../../src/adapters/image/placeholders.ts";

const RED = { r: 220, g: 30, b: 30 };
const BLUE = { r: 30, g: 40, b: 210 };

/** 300×200, red on the left half and blue on the right. */
const halves = () =>
  sharp({ create: { width: 300, height: 200, channels: 3, background: RED } })
    .composite([{ input: { create: { width: 150, height: 200, channels: 3, background: BLUE } }, left: 150, top: 0 }])
    .raw()
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ data, width: info.width, height: info.height, channels: info.channels }));

/** The colour a BlurHash shows at (x, y) of a 32×32 rendering. */
const blurhashAt = (hash: string, x: number, y: number) => {
  const pixels = decodeBlurhash(hash, 32, 32);
  const at = (y * 32 + x) * 4;
  return { r: pixels[at]!, g: pixels[at + 1]!, b: pixels[at + 2]! };
};

describe("result placeholders", () => {
  it("show a JPEG result's colours where they are, from one shrink of the encoded bytes", async () => {
    const raster = await halves();
    const jpeg = await sharp(raster.data, { raw: raster }).jpeg({ quality: 85 }).toBuffer();
    for (const placeholder of [await placeholderOfEncoded(jpeg), await placeholderOf(raster)]) {
      const left = blurhashAt(placeholder.blurhash, 4, 16);
      const right = blurhashAt(placeholder.blurhash, 27, 16);
      expect(left.r).toBeGreaterThan(left.b + 80);
      expect(right.b).toBeGreaterThan(right.r + 80);
      const thumb = Buffer.from(placeholder.thumbhash, "base64");
      // ThumbHash stores the aspect ratio coarsely: 3:2 reads back as 1.4.
      expect(Math.abs(thumbHashToApproximateAspectRatio(thumb) - 1.5)).toBeLessThan(0.15);
      const { w, h, rgba } = thumbHashToRGBA(thumb);
      const middleRow = Math.floor(h / 2) * w * 4;
      expect(rgba[middleRow]!).toBeGreaterThan(rgba[middleRow + 2]! + 60);
      expect(rgba[middleRow + (w - 1) * 4 + 2]!).toBeGreaterThan(rgba[middleRow + (w - 1) * 4]! + 60);
    }
  });

  it("show transparency on white in the BlurHash and keep it in the ThumbHash", async () => {
    const clear = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const placeholder = await placeholderOfEncoded(clear);
    expect(blurhashAt(placeholder.blurhash, 16, 16)).toEqual({ r: 255, g: 255, b: 255 });
    const { rgba } = thumbHashToRGBA(Buffer.from(placeholder.thumbhash, "base64"));
    expect(Math.max(...rgba.filter((_, index) => index % 4 === 3))).toBeLessThan(20);
  });

  it("halve by 2×2 means, an odd last row and column averaging what they have, on white", () => {
    // 3×3: a black opaque pixel, a half-transparent black one, the rest opaque white-ish values.
    const rgba = new Uint8ClampedArray(3 * 3 * 4).fill(255);
    rgba.set([0, 0, 0, 255], 0);
    rgba.set([0, 0, 0, 128], 4);
    rgba.set([101, 51, 21, 255], 8);
    rgba.set([10, 20, 30, 255], 32);
    const half = halvedOnWhite({ rgba, width: 3, height: 3 });
    expect([half.width, half.height]).toEqual([2, 2]);
    const pixel = (x: number, y: number) => Array.from(half.rgba.subarray((y * 2 + x) * 4, (y * 2 + x) * 4 + 4));
    // (0 + 127 + 255 + 255) / 4: the half-transparent black shows as mid grey.
    expect(pixel(0, 0)).toEqual([159, 159, 159, 255]);
    expect(pixel(1, 0)).toEqual([178, 153, 138, 255]);
    expect(pixel(1, 1)).toEqual([10, 20, 30, 255]);
  });
});
