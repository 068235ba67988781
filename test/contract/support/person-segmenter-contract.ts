import { Effect, type Layer } from "effect";
import { beforeAll, describe, expect, it } from "vitest";
import { PersonSegmenter, type PersonSegmenterShape } from "../../../src/ports/engines/person-segmenter.ts";
import { maskWhere, validated } from "../../fixtures/tryon/image-metrics.ts";
import * as fixtures from "../../fixtures/tryon/tryon-fixtures.ts";

const meanOver = (alpha: Uint8Array, region: Uint8Array): number => {
  let sum = 0;
  let n = 0;
  region.forEach((on, i) => {
    if (on) {
      sum += alpha[i]!;
      n++;
    }
  });
  return sum / n;
};

/** What every PersonSegmenter adapter must do. */
/** The rules every PersonSegmenter adapter keeps; one describe per adapter. */
export const personSegmenterContract = (name: string, layer: Layer.Layer<PersonSegmenter, unknown>) =>
  describe(`PersonSegmenter contract: ${name}`, () => {
    let segmenter: PersonSegmenterShape;
    beforeAll(async () => {
      segmenter = await Effect.runPromise(
        Effect.provide(
          Effect.gen(function* () {
            return yield* PersonSegmenter;
          }),
          layer,
        ),
      );
    });

    it("returns one alpha byte per pixel at the image's size", async () => {
      const portrait = await validated(await fixtures.astronautPortrait());
      const mask = await Effect.runPromise(segmenter.segment(portrait));
      expect([mask.width, mask.height, mask.alpha.length]).toEqual([768, 1024, 768 * 1024]);
    });

    it("marks the person and leaves the backdrop out", async () => {
      const image = await validated(fixtures.astronaut());
      const mask = await Effect.runPromise(segmenter.segment(image));
      // In the 512² NASA portrait: face and chest around x 170-290, y 80-400; grey backdrop at x 300-350, y 20-90.
      const body = maskWhere(image, (x, y) => x >= 170 && x < 290 && y >= 80 && y < 400);
      const backdrop = maskWhere(image, (x, y) => x >= 300 && x < 350 && y >= 20 && y < 90);
      expect(meanOver(mask.alpha, body)).toBeGreaterThan(230);
      expect(meanOver(mask.alpha, backdrop)).toBeLessThan(25);
    });

    it("reports bytes it cannot decode as InvalidImage", async () => {
      const image = await validated(fixtures.astronaut());
      const error = await Effect.runPromise(Effect.flip(segmenter.segment({ ...image, bytes: image.bytes.subarray(0, 100) })));
      expect(error._tag).toBe("InvalidImage");
    });
  });
