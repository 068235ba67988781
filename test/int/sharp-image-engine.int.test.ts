import { Effect, Exit } from "effect";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { makeSharpImageEngine } from "../../src/adapters/image/sharp-image-engine.ts";
import { makeSharpImageInspector } from "../../src/adapters/image/sharp-image-inspector.ts";
import { type Template } from "../../src/domain/template-catalog/template.ts";
import { findTemplate } from "../../src/domain/template-catalog/template-catalog.ts";
import type { RenderedImage } from "../../src/ports/engines/image.ts";
import { ellipsePersonSegmenter } from "../support/ellipse-person-segmenter.ts";
import { alphaPng, animatedGif, cmykJpeg, palettePng, photoJpeg, photoPng, photoTiff, sceneSvg, sixteenBitPng } from "../support/image-fixtures.ts";
import { decodeRgba, meanRgba } from "../support/pixels.ts";

const template = (type: string, name: string): Template => {
  const lookup = findTemplate(type, name);
  if (!lookup.found) throw new Error(`no template ${type}/${name}`);
  return lookup.template;
};

const inspector = makeSharpImageInspector();
const segmenter = ellipsePersonSegmenter();
const engine = makeSharpImageEngine(segmenter.service);

const render = async (bytes: Uint8Array, t: Template): Promise<RenderedImage> =>
  Effect.runPromise(Effect.flatMap(inspector.inspect(bytes), (image) => engine.render(image, t)));

const square = template("social", "instagram-square");
const story = template("social", "instagram-story");

/** The port's rules (size, format, orientation, transcoding, designs) are in test/contract/sharp-image-engine.contract.test.ts. */
describe("SharpImageEngine renders social templates", () => {
  it.each([
    ["CMYK JPEG", cmykJpeg],
    ["16-bit PNG", sixteenBitPng],
    ["palette PNG", palettePng],
    ["TIFF", photoTiff],
  ] as const)("%s comes out with the colours of the same scene from an sRGB PNG", async (_name, make) => {
    const reference = meanRgba(await decodeRgba((await render(await photoPng(), square)).bytes));
    const out = await render(await make(), square);
    expect(out.format).toBe("jpeg");
    const mean = meanRgba(await decodeRgba(out.bytes));
    // CMYK round-trips through a generic profile and drifts a little; a misread (inverted, unconverted) one is off by 100+.
    for (const c of [0, 1, 2]) expect(Math.abs((mean[c] ?? 0) - (reference[c] ?? 0))).toBeLessThan(16);
  });

  it("turns transparency into white in a JPEG, not black", async () => {
    const out = await render(await alphaPng(600, 400), story);
    const decoded = await decodeRgba(out.bytes);
    // The fixture's top quarter is transparent; a 9:16 crop of a landscape keeps every row.
    const [r, g, b] = meanRgba(decoded, { x0: 0, y0: 0, x1: 1, y1: 0.2 });
    expect(Math.min(r, g, b)).toBeGreaterThan(240);
  });

  it("uses the first frame of an animated GIF", async () => {
    const out = await render(await animatedGif(), square);
    const [r, g, b] = meanRgba(await decodeRgba(out.bytes));
    expect(r).toBeGreaterThan(180);
    expect(Math.max(g, b)).toBeLessThan(60);
  });

  it("never asks the segmenter for a mask", async () => {
    const before = segmenter.calls();
    await render(await photoJpeg(), square);
    expect(segmenter.calls()).toBe(before);
  });
});

describe("SharpImageEngine refuses pixel data the inspector could not see", () => {
  const failure = async (bytes: Uint8Array) => {
    const image = await Effect.runPromise(inspector.inspect(bytes));
    const exit = await Effect.runPromiseExit(engine.render(image, square));
    if (Exit.isSuccess(exit)) throw new Error("rendered a corrupt image");
    return exit.cause.reasons.find((r) => r._tag === "Fail")?.error;
  };

  it("a PNG whose pixel data is damaged", async () => {
    const png = Buffer.from(await photoPng());
    for (let i = 2_000; i < 2_400; i++) png[i] = (png[i] ?? 0) ^ 0x5a;
    expect(await failure(png)).toMatchObject({ _tag: "InvalidImage", message: expect.stringMatching(/PNG image data is corrupt/) });
  });

  it("a TIFF whose compressed strips are damaged", async () => {
    // libvips writes the directory at the end, so the header still reads.
    const tiff = Buffer.from(
      await sharp(Buffer.from(sceneSvg(600, 400)))
        .tiff({ compression: "deflate" })
        .toBuffer(),
    );
    for (let i = 3_000; i < 3_400; i++) tiff[i] = (tiff[i] ?? 0) ^ 0x5a;
    expect(await failure(tiff)).toMatchObject({ _tag: "InvalidImage", message: expect.stringMatching(/TIFF image data is corrupt/) });
  });
});
