import { readFileSync } from "node:fs";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { DEFAULT_TRYON_SETTINGS, TRYON_SETTING_VALUES } from "../../src/domain/tryon-settings.ts";
import { erode, fineDetailCorrelation } from "../fixtures/tryon/fine-detail.ts";
import * as m from "../fixtures/tryon/image-metrics.ts";
import { tryOnEngineForFile } from "../fixtures/tryon/tryon-engine-per-file.ts";
import * as fixtures from "../fixtures/tryon/tryon-fixtures.ts";
import { GARMENT_CHANGE } from "../fixtures/tryon/tryon-metrics.ts";

/**
 * Issue 29: the garment is opaque on ordinary photos. For each public photo of a person and each
 * realismLevel, with the plain T-shirt product shot, the fine-detail correlation (fine-detail.ts)
 * between the photo and the result over the garment must be ≤ 0.10: the old clothes' lapels,
 * stripes and folds must not show through. The garment's pixels are those that moved by more than
 * GARMENT_CHANGE levels (as the quality test's), shrunk by EDGE pixels so that the garment's own
 * outline, soft by design and an edge the photo lacks, does not count either way.
 */
const LIMIT = 0.1;
const EDGE = 4;
/** Too few garment pixels would make the figure meaningless. */
const MIN_PIXELS = 5000;

const here = new URL("../fixtures/", import.meta.url);
const photos: ReadonlyArray<{ readonly name: string; readonly photo: () => Promise<Uint8Array> }> = [
  { name: "astronaut (NASA, PD), 512×512", photo: async () => fixtures.astronaut() },
  { name: "astronaut 768×1024 JPEG", photo: fixtures.astronautPortrait },
  { name: "Grace Hopper (US Navy, PD), uniform", photo: async () => readFileSync(new URL("tryon/grace-hopper.jpg", here)) },
  { name: "cameraman (CC0), grey, dark coat", photo: async () => readFileSync(new URL("faces/camera.png", here)) },
];

const tryOn = tryOnEngineForFile();

describe("the garment hides the old clothes' fine detail", () => {
  for (const { name, photo } of photos)
    for (const realismLevel of TRYON_SETTING_VALUES.realismLevel)
      it(`${name}, ${realismLevel}: correlation ≤ ${LIMIT}`, async () => {
        const person = await photo();
        const result = await Effect.runPromise(
          tryOn.engine().tryOn({
            person: await m.validated(person),
            clothing: await m.validated(tryOn.shirt()),
            settings: { ...DEFAULT_TRYON_SETTINGS, realismLevel },
          }),
        );
        const input = await m.pixels(person);
        const output = await m.pixels(result.image.bytes);
        const garment = erode(m.changed(input, output, GARMENT_CHANGE), input.width, EDGE);
        const r = fineDetailCorrelation(input, output, garment);
        console.log(`fine detail | ${name} | ${realismLevel} | r = ${r.toFixed(3)} over ${m.count(garment)} px`);
        expect(m.count(garment)).toBeGreaterThan(MIN_PIXELS);
        expect(r).toBeLessThanOrEqual(LIMIT);
      }, 60_000);
});
