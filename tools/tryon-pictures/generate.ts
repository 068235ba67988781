import { readFileSync, writeFileSync } from "node:fs";
import { Context, Effect } from "effect";
import sharp from "sharp";
import { OnnxTryOnEngineLive } from "../../src/adapters/tryon/onnx-tryon-engine.ts";
import { DEFAULT_TRYON_SETTINGS, type TryOnSettings } from "../../src/domain/tryon-settings.ts";
import { TryOnEngine } from "../../src/ports/engines/tryon-engine.ts";
import { validated } from "../../test/fixtures/tryon/image-metrics.ts";
import { openLayer } from "../../test/fixtures/tryon/open-layer.ts";
import { astronaut, crossedArmFigure, longSleeveShirt, tshirt } from "../../test/fixtures/tryon/tryon-fixtures.ts";

/**
 * Writes the try-on pictures (docs/virtual-tryon.md) with the engine as it is, default settings: each is the
 * person photo, the product shot and the result side by side. The photos: the NASA portrait of
 * Eileen Collins (public domain), the drawn person whose forearm crosses the torso, and the US
 * Navy portrait of Grace Hopper in uniform (public domain) at realismLevel high, the setting that
 * once let the old clothes show through; the garments are the fixtures' drawings.
 *
 *   npm run docs:tryon-pictures
 */
const HEIGHT = 300;
const { context, close } = await openLayer(OnnxTryOnEngineLive());
const engine = Context.get(context, TryOnEngine);

const picture = async (name: string, person: Uint8Array, clothing: Uint8Array, settings: Partial<TryOnSettings> = {}) => {
  const result = await Effect.runPromise(
    engine.tryOn({ person: await validated(person), clothing: await validated(clothing), settings: { ...DEFAULT_TRYON_SETTINGS, ...settings } }),
  );
  const tiles = await Promise.all(
    [person, clothing, result.image.bytes].map((bytes) => sharp(bytes).resize({ height: HEIGHT }).flatten({ background: "#ffffff" }).png().toBuffer()),
  );
  const widths = await Promise.all(tiles.map(async (tile) => (await sharp(tile).metadata()).width));
  const gap = 8;
  const sheet = await sharp({
    create: { width: widths.reduce((s, w) => s + w, 0) + gap * (tiles.length - 1), height: HEIGHT, channels: 3, background: "#ffffff" },
  })
    .composite(tiles.map((input, i) => ({ input, top: 0, left: widths.slice(0, i).reduce((s, w) => s + w + gap, 0) })))
    .png({ palette: true, quality: 90 })
    .toBuffer();
  writeFileSync(new URL(`../../docs/tryon-${name}.png`, import.meta.url), sheet);
  process.stdout.write(`docs/tryon-${name}.png: ${result.detection.garment}, coverage ${result.coverage.toFixed(3)}\n`);
};
await picture("astronaut", astronaut(), await tshirt());
await picture("crossed-arm", await crossedArmFigure(), await longSleeveShirt());
const hopper = readFileSync(new URL("../../test/fixtures/tryon/grace-hopper.jpg", import.meta.url));
await picture("grace-hopper-high", hopper, await tshirt(), { realismLevel: "high" });
await close();
