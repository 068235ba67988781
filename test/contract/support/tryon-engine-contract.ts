import { Context, Effect, type Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRYON_SETTINGS } from "../../../src/domain/tryon-settings.ts";
import type { ValidatedImage } from "../../../src/ports/engines/image.ts";
import { TryOnEngine, type TryOnEngineShape } from "../../../src/ports/engines/tryon-engine.ts";
import { validated } from "../../fixtures/tryon/image-metrics.ts";
import { openLayer } from "../../fixtures/tryon/open-layer.ts";
import * as fixtures from "../../fixtures/tryon/tryon-fixtures.ts";

/** What every TryOnEngine adapter must do, whatever its models. */
/** The rules every TryOnEngine adapter keeps; one describe per adapter. */
export const tryOnEngineContract = (name: string, layer: Layer.Layer<TryOnEngine, unknown>) =>
  describe(`TryOnEngine contract: ${name}`, () => {
    let engine: TryOnEngineShape;
    let person: ValidatedImage;
    let shirt: ValidatedImage;

    let close: () => Promise<void>;
    beforeAll(async () => {
      const opened = await openLayer(layer);
      close = opened.close;
      engine = Context.get(opened.context, TryOnEngine);
      person = await validated(fixtures.astronaut());
      shirt = await validated(await fixtures.tshirt());
    });
    afterAll(() => close?.());

    const failure = (p: ValidatedImage, c: ValidatedImage) =>
      Effect.runPromise(Effect.flip(engine.tryOn({ person: p, clothing: c, settings: DEFAULT_TRYON_SETTINGS })));

    it("returns an image of the person image's size, the settings applied and the torso it fitted", async () => {
      const portrait = await validated(await fixtures.astronautPortrait());
      const settings = { ...DEFAULT_TRYON_SETTINGS, fitPreference: "loose" } as const;
      const result = await Effect.runPromise(engine.tryOn({ person: portrait, clothing: shirt, settings }));
      expect([result.image.width, result.image.height]).toEqual([768, 1024]);
      expect(result.settings).toEqual(settings);
      expect(result.detection.torso).toHaveLength(4);
      expect(result.detection.keypoints.map((k) => k.name)).toContain("left_shoulder");
      expect(result.detection.garment).toBe("short-sleeve");
      expect(result.coverage).toBeGreaterThan(0);
      expect(result.coverage).toBeLessThanOrEqual(1);
      expect(result.method).toBe("garment-overlay-2d");
      expect(result.confidence).toBeGreaterThan(0);
      expect(result.confidence).toBeLessThanOrEqual(1);
    });

    it("encodes what it says: JPEG normally, PNG with alpha for a transparent background", async () => {
      const jpeg = await Effect.runPromise(engine.tryOn({ person, clothing: shirt, settings: DEFAULT_TRYON_SETTINGS }));
      expect(jpeg.image).toMatchObject({ format: "jpeg", contentType: "image/jpeg", width: 512, height: 512 });
      expect([...jpeg.image.bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      const png = await Effect.runPromise(engine.tryOn({ person, clothing: shirt, settings: { ...DEFAULT_TRYON_SETTINGS, backgroundStyle: "transparent" } }));
      expect(png.image).toMatchObject({ format: "png", contentType: "image/png" });
      expect(new TextDecoder().decode(png.image.bytes.subarray(1, 4))).toBe("PNG");
    });

    it("refuses a photo without a person: NO_PERSON_DETECTED on personImage", async () => {
      const error = await failure(await validated(fixtures.coffee()), shirt);
      expect(error).toMatchObject({ _tag: "UnusableTryOnInput", code: "NO_PERSON_DETECTED", field: "personImage" });
    });

    it("refuses a photo of several people: MULTIPLE_PEOPLE", async () => {
      const error = await failure(await validated(await fixtures.twoPeople()), shirt);
      expect(error).toMatchObject({ _tag: "UnusableTryOnInput", code: "MULTIPLE_PEOPLE", field: "personImage" });
    });

    it("refuses a person with no face above the shoulders: PERSON_TURNED_AWAY, saying why", async () => {
      // The NASA portrait cut below the eyes: a crop of the public photo standing in for a back view.
      const error = await failure(await validated(await fixtures.astronautFaceCut()), shirt);
      expect(error).toMatchObject({ _tag: "UnusableTryOnInput", code: "PERSON_TURNED_AWAY", field: "personImage" });
      expect(error.message).toContain("turned away");
    });

    it("refuses a torso mostly out of the photo: TORSO_NOT_VISIBLE, saying how much is in it", async () => {
      const error = await failure(await validated(await fixtures.astronautTorsoCut()), shirt);
      expect(error).toMatchObject({ _tag: "UnusableTryOnInput", code: "TORSO_NOT_VISIBLE", field: "personImage" });
      expect(error.message).toMatch(/only \d+ % of the torso/);
    });

    it("refuses a clothing image without a garment: NO_GARMENT_DETECTED on clothingImage", async () => {
      expect(await failure(person, await validated(await fixtures.blank()))).toMatchObject({ code: "NO_GARMENT_DETECTED", field: "clothingImage" });
      // A busy photo with no plain backdrop: nothing can be cut out.
      expect(await failure(person, await validated(fixtures.coffee()))).toMatchObject({ code: "NO_GARMENT_DETECTED", field: "clothingImage" });
    });

    it("refuses garments it cannot place (trousers, a skirt, a dress): UNSUPPORTED_GARMENT on clothingImage", async () => {
      for (const garment of [fixtures.trousers, fixtures.skirt, fixtures.dress]) {
        expect(await failure(person, await validated(await garment()))).toMatchObject({ code: "UNSUPPORTED_GARMENT", field: "clothingImage" });
      }
    });

    it("reports bytes it cannot decode as InvalidImage", async () => {
      const broken = { ...person, bytes: person.bytes.subarray(0, 200) };
      expect(await failure(broken, shirt)).toMatchObject({ _tag: "InvalidImage" });
    });
  });
