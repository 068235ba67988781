import { Effect, type Layer, ManagedRuntime } from "effect";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DesignLayout } from "../../../src/domain/account-templates/account-template-design.ts";
import type { Template } from "../../../src/domain/template-catalog/template.ts";
import { findTemplate } from "../../../src/domain/template-catalog/template-catalog.ts";
import type { ImageFormat, ValidatedImage } from "../../../src/ports/engines/image.ts";
import { ImageEngine, type ImageEngineShape } from "../../../src/ports/engines/image-engine.ts";
import { exifRotatedJpeg, photoJpeg, photoPng } from "../../support/image-fixtures.ts";
import { decodeRgba, meanRgba, pixelAt } from "../../support/pixels.ts";

const template = (type: string, name: string): Template => {
  const lookup = findTemplate(type, name);
  if (!lookup.found) throw new Error(`no template ${type}/${name}`);
  return lookup.template;
};

/** Bytes as an inspector accepts them: their format and displayed size (after EXIF orientation). */
const validated = async (bytes: Uint8Array): Promise<ValidatedImage> => {
  const { format, autoOrient } = await sharp(bytes).metadata();
  return { bytes, format: format as ImageFormat, width: autoOrient.width, height: autoOrient.height };
};

/** The rules every ImageEngine adapter keeps (ports/engines/image-engine.ts); one describe per adapter. */
export const imageEngineContract = (name: string, layer: Layer.Layer<ImageEngine, unknown>) =>
  describe(`ImageEngine contract: ${name}`, () => {
    let runtime: ManagedRuntime.ManagedRuntime<ImageEngine, unknown>;
    let engine: ImageEngineShape;
    beforeAll(async () => {
      runtime = ManagedRuntime.make(layer);
      engine = await runtime.runPromise(Effect.service(ImageEngine));
    });
    afterAll(() => runtime?.dispose());

    const render = async (bytes: Uint8Array, type: string, name: string) => Effect.runPromise(engine.render(await validated(bytes), template(type, name)));

    it("renders a catalog template at its size and in its format, and reports the size it encoded", async () => {
      for (const [name, width, height] of [
        ["instagram-square", 1080, 1080],
        ["instagram-story", 1080, 1920],
      ] as const) {
        const out = await render(await photoJpeg(1200, 800), "social", name);
        expect(out).toMatchObject({ format: "jpeg", contentType: "image/jpeg", width, height });
        const decoded = await decodeRgba(out.bytes);
        expect([decoded.width, decoded.height]).toEqual([width, height]);
      }
    });

    it("reads the image as displayed, after its EXIF orientation", async () => {
      // Stored 800×500 with a red left column, orientation 6: displayed 500×800 with a red top row.
      const out = await render(await exifRotatedJpeg(800, 500), "social", "youtube-thumbnail");
      const decoded = await decodeRgba(out.bytes);
      expect([decoded.width, decoded.height]).toEqual([1280, 720]);
      expect(pixelAt(decoded, decoded.width / 2, 2)[0]).toBeGreaterThan(180);
      expect(pixelAt(decoded, decoded.width / 2, decoded.height - 3)[2]).toBeGreaterThan(150);
    });

    it("transcodes to another format: the same size and colours", async () => {
      const png = await photoPng(600, 400);
      const out = await Effect.runPromise(engine.transcode(await validated(png), { format: "webp", quality: 90 }));
      expect(out).toMatchObject({ format: "webp", contentType: "image/webp", width: 600, height: 400 });
      const [before, after] = [meanRgba(await decodeRgba(png)), meanRgba(await decodeRgba(out.bytes))];
      for (const c of [0, 1, 2]) expect(Math.abs((after[c] ?? 0) - (before[c] ?? 0))).toBeLessThan(8);
    });

    it("draws an account's design layer by layer on a canvas of its size and format", async () => {
      const design: DesignLayout = {
        canvas: { width: 300, height: 200, background: "#ffffff", format: "png" },
        layers: [{ type: "shape", box: { x: 20, y: 20, width: 100, height: 60 }, fill: "#ff0000" }],
      };
      const out = await Effect.runPromise(engine.renderDesign(design, { images: {}, text: {} }));
      expect(out).toMatchObject({ format: "png", contentType: "image/png", width: 300, height: 200 });
      const decoded = await decodeRgba(out.bytes);
      expect(pixelAt(decoded, 70, 50).slice(0, 3)).toEqual([255, 0, 0]);
      expect(pixelAt(decoded, 250, 150).slice(0, 3)).toEqual([255, 255, 255]);
    });

    it("reports pixel data it cannot decode as InvalidImage, rendering or transcoding", async () => {
      const png = Buffer.from(await photoPng());
      for (let i = 2_000; i < 2_400; i++) png[i] = (png[i] ?? 0) ^ 0x5a;
      const image = await validated(png);
      expect(await Effect.runPromise(Effect.flip(engine.render(image, template("social", "instagram-square"))))).toMatchObject({ _tag: "InvalidImage" });
      expect(await Effect.runPromise(Effect.flip(engine.transcode(image, { format: "jpeg", quality: 80 })))).toMatchObject({ _tag: "InvalidImage" });
    });
  });
