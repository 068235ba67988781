import { readdirSync, readFileSync } from "node:fs";
import { Effect } from "effect";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { makeSharpImageEngine } from "../../src/adapters/image/sharp-image-engine.ts";
import { makeSharpImageInspector } from "../../src/adapters/image/sharp-image-inspector.ts";
import { SOCIAL_TEMPLATES } from "../../src/domain/template-catalog/social.ts";
import type { Framing } from "../../src/ports/engines/image.ts";
import { DependencyUnavailable } from "../../src/ports/errors.ts";

/**
 * The engine looks for a crop's window by attention on a small copy of the photo, its shorter side
 * 384 pixels (cover-framing.ts, searchCopy), not on the copy scaled to cover the box as plain sharp
 * does. Photos of people (test/fixtures/people) through templates of every shape from 2:3 to 4:1:
 * - the window is where libvips' attention puts it on the photo at that size, mapped back to the
 *   upload's pixels (within 1 % of the side for nine in ten, 3 % for all);
 * - so it no longer depends on the size the photo was uploaded at: the same photo at 1600 and at 2400
 *   pixels is cut at the same place (plain sharp's attention, searching the copy scaled to cover the
 *   box, moves a full-length portrait's square crop from 48 % to 30 % of its height between the two).
 */
const PEOPLE = new URL("../fixtures/people/", import.meta.url);
const SHAPES = ["instagram-square", "instagram-story", "pinterest-pin", "twitter-post", "linkedin-banner"];
const SEARCH_SIDE = 384;

const noSegmenter = { segment: () => Effect.fail(new DependencyUnavailable({ dependency: "person-segmenter (not used here)" })) };
const engine = makeSharpImageEngine(noSegmenter);
const inspector = makeSharpImageInspector();

/** A photo as a camera's JPEG, its longer side `long` pixels. */
const uploadAt = async (file: string, long: number) => {
  const bytes = await sharp(readFileSync(new URL(file, PEOPLE)))
    .rotate()
    .resize(long, long, { fit: "inside" })
    .jpeg({ quality: 90 })
    .toBuffer();
  return Effect.runPromise(inspector.inspect(bytes));
};

/** The window's top left as shares of the photo's width and height. */
const relative = (crop: Framing["crop"], image: { width: number; height: number }) => ({ x: crop.left / image.width, y: crop.top / image.height });

/** Where libvips' attention puts a window of the box's shape on the photo shrunk to SEARCH_SIDE, as shares of the photo. */
const attentionAtSearchSize = async (bytes: Uint8Array, box: { width: number; height: number }) => {
  const small = await sharp(bytes).rotate().resize(SEARCH_SIDE, SEARCH_SIDE, { fit: "outside" }).raw().toBuffer({ resolveWithObject: true });
  const { width, height } = small.info;
  const k = Math.min(width / box.width, height / box.height);
  const window = { width: Math.round(box.width * k), height: Math.round(box.height * k) };
  const { info } = await sharp(small.data, { raw: small.info })
    .resize(window.width, window.height, { fit: "cover", position: "attention" })
    .toBuffer({ resolveWithObject: true });
  const cover = Math.max(window.width / width, window.height / height);
  return { x: -(info.cropOffsetLeft ?? 0) / cover / width, y: -(info.cropOffsetTop ?? 0) / cover / height };
};

const apart = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));

describe("a crop by attention, searched on a small copy", () => {
  it("is cut where attention puts it on the photo at the search size, whatever size the photo was uploaded at", async () => {
    const [fromSearchSize, acrossSizes]: [Array<number>, Array<number>] = [[], []];
    for (const file of readdirSync(PEOPLE).filter((name) => name.endsWith(".jpg"))) {
      const [large, smaller] = [await uploadAt(file, 2400), await uploadAt(file, 1600)];
      for (const name of SHAPES) {
        const template = SOCIAL_TEMPLATES.find((candidate) => candidate.template === name)!;
        const step = template.steps[0]!;
        if (step.op !== "resize") throw new Error(`${name} does not start with a resize`);
        const windows = [];
        for (const image of [large, smaller]) {
          const { framing, width, height } = await Effect.runPromise(engine.render(image, template, { focus: "attention" }));
          expect(framing?.crop.by, `${file} → ${name}`).toBe("attention");
          expect([width, height], `${file} → ${name}`).toEqual([step.width, step.height]);
          windows.push(relative(framing!.crop, image));
        }
        fromSearchSize.push(apart(windows[0]!, await attentionAtSearchSize(large.bytes, step)));
        acrossSizes.push(apart(windows[0]!, windows[1]!));
      }
    }
    const share = (values: ReadonlyArray<number>, within: number) => values.filter((value) => value <= within).length / values.length;
    console.log(
      `attention on the search copy: ${fromSearchSize.length} windows, ${(share(fromSearchSize, 0.01) * 100).toFixed(0)} % within 1 % of attention ` +
        `at the search size (farthest ${(Math.max(...fromSearchSize) * 100).toFixed(1)} %); uploads at 2400 and 1600 pixels apart by ` +
        `${(Math.max(...acrossSizes) * 100).toFixed(1)} % at most`,
    );
    expect(fromSearchSize).toHaveLength(8 * SHAPES.length);
    expect(share(fromSearchSize, 0.01)).toBeGreaterThanOrEqual(0.9);
    expect(Math.max(...fromSearchSize)).toBeLessThanOrEqual(0.03);
    expect(share(acrossSizes, 0.01)).toBeGreaterThanOrEqual(0.9);
    expect(Math.max(...acrossSizes)).toBeLessThanOrEqual(0.03);
  }, 180_000);
});
