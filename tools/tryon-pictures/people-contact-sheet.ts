import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Context, Effect } from "effect";
import sharp from "sharp";
import { OnnxTryOnEngineLive } from "../../src/adapters/tryon/onnx-tryon-engine.ts";
import { DEFAULT_TRYON_SETTINGS } from "../../src/domain/tryon-settings.ts";
import { TryOnEngine } from "../../src/ports/engines/tryon-engine.ts";
import { validated } from "../../test/fixtures/tryon/image-metrics.ts";
import { openLayer } from "../../test/fixtures/tryon/open-layer.ts";
import { longSleeveShirt, tshirt } from "../../test/fixtures/tryon/tryon-fixtures.ts";

/**
 * Writes docs/tryon-people.jpg: every photo of the shared photo set of ordinary people (not in the
 * repository: `../shared/people/photos`, their licences in its SOURCES.md) that the try-on accepts,
 * as before | the drawn T-shirt | the drawn long-sleeved shirt, default settings, each photo first
 * downscaled to 768 px on its long side; and prints why each other photo was refused. The COCO
 * photos (CC BY 2.0) are tried but left off the sheet: their Flickr authors, whom the licence
 * requires the sheet to credit, are not recorded with them yet.
 *
 *   node tools/tryon-pictures/people-contact-sheet.ts [PHOTOS_FOLDER [SHEET_FILE]]
 */
const folder = process.argv[2] ?? path.resolve(import.meta.dirname, "../../../shared/people/photos");
const sheetFile = process.argv[3] ?? path.resolve(import.meta.dirname, "../../docs/tryon-people.jpg");
const HEIGHT = 180;
const GAP = 6;
const { context, close } = await openLayer(OnnxTryOnEngineLive());
const engine = Context.get(context, TryOnEngine);
const garments = [await tshirt(), await longSleeveShirt()];

const tile = (bytes: Uint8Array) => sharp(bytes).resize({ height: HEIGHT }).flatten({ background: "#ffffff" }).png().toBuffer();
const rows: Array<ReadonlyArray<Buffer>> = [];
for (const name of readdirSync(folder)
  .filter((f) => /\.(jpe?g|png)$/i.test(f))
  .sort()) {
  const person = await sharp(readFileSync(path.join(folder, name)))
    .resize(768, 768, { fit: "inside" })
    .jpeg({ quality: 92 })
    .toBuffer();
  const results = [];
  for (const clothing of garments) {
    const outcome = await Effect.runPromise(
      Effect.result(engine.tryOn({ person: await validated(person), clothing: await validated(clothing), settings: DEFAULT_TRYON_SETTINGS })),
    );
    results.push(outcome);
  }
  const refused = results.find((r) => r._tag === "Failure");
  if (refused !== undefined) {
    process.stdout.write(`${name}: refused, ${JSON.stringify(refused.failure).slice(0, 160)}\n`);
    continue;
  }
  const credited = !name.startsWith("coco_");
  if (credited) rows.push(await Promise.all([person, ...results.map((r) => (r._tag === "Success" ? r.success.image.bytes : person))].map(tile)));
  process.stdout.write(`${name}: accepted${credited ? "" : " (left off the sheet: no credit recorded)"}\n`);
}
await close();

const widths = await Promise.all(rows.map((row) => Promise.all(row.map(async (t) => (await sharp(t).metadata()).width))));
const width = Math.max(...widths.map((w) => w.reduce((s, v) => s + v + GAP, -GAP)));
const sheet = await sharp({ create: { width, height: rows.length * (HEIGHT + GAP) - GAP, channels: 3, background: "#ffffff" } })
  .composite(
    rows.flatMap((row, r) => row.map((input, i) => ({ input, top: r * (HEIGHT + GAP), left: widths[r]!.slice(0, i).reduce((s, w) => s + w + GAP, 0) }))),
  )
  .jpeg({ quality: 82 })
  .toBuffer();
writeFileSync(sheetFile, sheet);
process.stdout.write(`${sheetFile}: ${rows.length} photos\n`);
