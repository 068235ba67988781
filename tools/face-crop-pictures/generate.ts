import { Effect, ManagedRuntime } from "effect";
import sharp from "sharp";
import { BlazeFaceDetectorLive } from "../../src/adapters/faces/blazeface-face-detector.ts";
import { makeSharpImageEngine } from "../../src/adapters/image/sharp-image-engine.ts";
import { makeSharpImageInspector } from "../../src/adapters/image/sharp-image-inspector.ts";
import type { Box } from "../../src/domain/crop-window.ts";
import { findTemplate } from "../../src/domain/template-catalog/template-catalog.ts";
import { FaceDetector } from "../../src/ports/engines/face-detector.ts";
import { DependencyUnavailable } from "../../src/ports/errors.ts";
import { faceSet } from "../../test/fixtures/faces/face-set.ts";

/**
 * Writes the face-crop picture (docs/face-crops.jpg) with the engine as it is: per row,
 * a photo of the face set with the faces found (yellow), the window taken faces first (green) and
 * by attention alone, the old behaviour (red); then both results.
 *
 *   npm run docs:face-pictures
 */
const HEIGHT = 220;
const CASES = [
  ["two people side by side", "linkedin-banner"],
  ["small faces, off-centre, wide", "instagram-story"],
  ["three people, one mirrored", "youtube-thumbnail"],
  ["headshot, close", "facebook-post"],
] as const;

const runtime = ManagedRuntime.make(BlazeFaceDetectorLive());
const faces = await runtime.runPromise(
  Effect.gen(function* () {
    return yield* FaceDetector;
  }),
);
const engine = makeSharpImageEngine({ segment: () => Effect.fail(new DependencyUnavailable({ dependency: "unused" })) }, { faces });
const inspector = makeSharpImageInspector();
const photos = await faceSet();

const rect = (b: Box, k: number, colour: string, width: number) =>
  `<rect x="${b.left * k}" y="${b.top * k}" width="${b.width * k}" height="${b.height * k}" fill="none" stroke="${colour}" stroke-width="${width}"/>`;

const rows = await Promise.all(
  CASES.map(async ([photoName, templateName]) => {
    const photo = photos.find((p) => p.name === photoName)!;
    const lookup = findTemplate("social", templateName);
    if (!lookup.found) throw new Error(templateName);
    const image = await Effect.runPromise(inspector.inspect(photo.bytes));
    const [now, old] = await Promise.all(
      ["auto", "attention"].map((focus) => Effect.runPromise(engine.render(image, lookup.template, { focus: focus as "auto" }))),
    );
    const k = HEIGHT / photo.height;
    const overlay = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.round(photo.width * k)}" height="${HEIGHT}">` +
        (now!.framing?.faces ?? []).map((f) => rect(f.box, k, "#ffd400", 2)).join("") +
        rect(old!.framing!.crop, k, "#e0202a", 4) +
        rect(now!.framing!.crop, k, "#18c040", 4) +
        "</svg>",
    );
    const tiles = [
      await sharp(photo.bytes)
        .rotate()
        .resize({ height: HEIGHT })
        .composite([{ input: overlay }])
        .png()
        .toBuffer(),
      await sharp(now!.bytes).resize({ height: HEIGHT }).png().toBuffer(),
      await sharp(old!.bytes).resize({ height: HEIGHT }).png().toBuffer(),
    ];
    const widths = await Promise.all(tiles.map(async (tile) => (await sharp(tile).metadata()).width));
    let left = 0;
    const layers = tiles.map((input, i) => {
      const layer = { input, left, top: 0 };
      left += widths[i]! + 12;
      return layer;
    });
    return {
      width: left - 12,
      input: await sharp({ create: { width: left - 12, height: HEIGHT, channels: 3, background: "#ffffff" } })
        .composite(layers)
        .png()
        .toBuffer(),
    };
  }),
);
const width = Math.max(...rows.map((r) => r.width));
await sharp({ create: { width, height: rows.length * (HEIGHT + 12) - 12, channels: 3, background: "#ffffff" } })
  .composite(rows.map((row, i) => ({ input: row.input, left: 0, top: i * (HEIGHT + 12) })))
  .jpeg({ quality: 80 })
  .toFile("docs/face-crops.jpg");
await runtime.dispose();
