import { randomBytes } from "node:crypto";
import { Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { makeSharpImageInspector } from "../../src/adapters/image/sharp-image-inspector.ts";
import type { ValidatedImage } from "../../src/ports/engines/image.ts";
import {
  alphaPng,
  animatedGif,
  cmykJpeg,
  exifRotatedJpeg,
  palettePng,
  photoAvif,
  photoJpeg,
  photoPng,
  photoTiff,
  photoWebp,
  pngBomb,
  sixteenBitPng,
} from "../support/image-fixtures.ts";

const inspector = makeSharpImageInspector();

const accept = (bytes: Uint8Array): Promise<ValidatedImage> => Effect.runPromise(inspector.inspect(bytes));

/** Runs the inspector on hostile bytes and returns the refusal, with how long it took. */
const refuse = async (bytes: Uint8Array, inspect = inspector.inspect) => {
  const started = performance.now();
  const exit = await Effect.runPromiseExit(inspect(bytes));
  const ms = performance.now() - started;
  if (Exit.isSuccess(exit)) throw new Error(`accepted: ${JSON.stringify({ ...exit.value, bytes: undefined })}`);
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error;
  if (!error) throw new Error(`died instead of failing: ${String(exit.cause)}`);
  return { error, ms };
};

describe("SharpImageInspector accepts the allowed raster formats", () => {
  it.each([
    ["jpeg", photoJpeg, 1200, 800],
    ["png", photoPng, 600, 400],
    ["webp", photoWebp, 600, 400],
    ["avif", photoAvif, 300, 200],
    ["tiff", photoTiff, 600, 400],
    ["gif", animatedGif, 200, 150],
  ] as const)("%s", async (format, make, width, height) => {
    const image = await accept(await make());
    expect({ format: image.format, width: image.width, height: image.height }).toEqual({ format, width, height });
  });

  it.each([
    ["CMYK JPEG", cmykJpeg, "jpeg"],
    ["16-bit PNG", sixteenBitPng, "png"],
    ["palette PNG", palettePng, "png"],
    ["PNG with alpha", alphaPng, "png"],
  ] as const)("%s", async (_name, make, format) => {
    expect((await accept(await make())).format).toBe(format);
  });

  it("reports the displayed size of an EXIF-rotated JPEG", async () => {
    const image = await accept(await exifRotatedJpeg(800, 500));
    expect([image.width, image.height]).toEqual([500, 800]);
  });

  it("keeps the bytes it was given", async () => {
    const bytes = await photoPng();
    expect((await accept(bytes)).bytes).toBe(bytes);
  });
});

describe("SharpImageInspector refuses hostile input with InvalidImage, each within 1 s", () => {
  const cases: ReadonlyArray<readonly [string, () => Uint8Array | Promise<Uint8Array>, RegExp]> = [
    ["0 bytes", () => new Uint8Array(0), /empty/],
    ["random bytes", () => randomBytes(4096), /signature/],
    ["a truncated JPEG", async () => (await photoJpeg()).subarray(0, 20_000), /JPEG.*truncated/],
    ["a JPEG cut inside its header", async () => (await photoJpeg()).subarray(0, 300), /JPEG.*truncated/],
    ["a truncated PNG", async () => (await photoPng()).subarray(0, 5_000), /PNG.*truncated/],
    ["a truncated TIFF (its directory comes last)", async () => (await photoTiff()).subarray(0, 15_000), /TIFF image is corrupt/],
    ["a truncated WebP", async () => (await photoWebp()).subarray(0, 2_000), /WebP.*truncated/],
    [
      "a JPEG signature followed by junk",
      () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]), randomBytes(2000), Buffer.from([0xff, 0xd9])]),
      /JPEG image is corrupt/,
    ],
    ["SVG", () => Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'), /SVG/],
    ["SVG with a BOM and leading blanks", () => Buffer.from('\uFEFF\n  <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), /SVG/],
    ["PDF", () => Buffer.from("%PDF-1.7\n1 0 obj << >> endobj\n"), /PDF/],
    ["HEIC", () => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from("ftypheic\0\0\0\0mif1heic"), randomBytes(64)]), /HEIC/],
    ["BMP", () => Buffer.concat([Buffer.from("BM"), randomBytes(64)]), /BMP/],
    ["a 30000×30000 PNG bomb", () => pngBomb(), /30000×30000.*limit is 40 megapixels/],
  ];

  it.each(cases)("%s", async (_name, make, message) => {
    const { error, ms } = await refuse(await make());
    expect(error._tag).toBe("InvalidImage");
    expect(error.message).toMatch(message);
    expect(ms).toBeLessThan(1000);
  });

  it("the bomb is small on disk", () => {
    expect(pngBomb().length).toBeLessThan(200_000);
  });

  it("applies a configured pixel limit to the displayed size", async () => {
    const small = makeSharpImageInspector({ maxPixels: 1200 * 800 - 1 });
    const { error } = await refuse(await photoJpeg(1200, 800), small.inspect);
    expect(error.message).toMatch(/1200×800 \(0.96 megapixels\); the limit is 0.96 megapixels/);
    await expect(Effect.runPromise(makeSharpImageInspector({ maxPixels: 1200 * 800 }).inspect(await photoJpeg(1200, 800)))).resolves.toMatchObject({
      width: 1200,
    });
  });
});
