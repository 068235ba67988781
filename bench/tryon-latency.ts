/**
 * Try-on latency at 768×1024 on this machine (2 cores): p50 and p95 over repeated requests,
 * the engine's load time (read, verify, convert, warm) and its memory. Baseline, measured in the
 * same run: a plain sharp paste of the product shot onto the photo (decode, resize, composite,
 * encode), the floor that any try-on pays for image I/O. Goal: p50 ≤ 1.5 s.
 *
 *   npx tsx bench/tryon-latency.ts [runs]
 */
import { Effect } from "effect";
import sharp from "sharp";
import { OnnxTryOnEngineLive } from "../src/adapters/tryon/onnx-tryon-engine.ts";
import { DEFAULT_TRYON_SETTINGS, TRYON_SETTING_NAMES, TRYON_SETTING_VALUES, type TryOnSettings } from "../src/domain/tryon-settings.ts";
import { TryOnEngine } from "../src/ports/tryon-engine.ts";
import { validated } from "../test/fixtures/tryon/image-metrics.ts";
import { astronautPortrait, tshirt } from "../test/fixtures/tryon/tryon-fixtures.ts";

const GOAL_P50_MS = 1500;
const runs = Number(process.argv[2] ?? 30);

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
const time = async (f: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await f();
  return performance.now() - start;
};

const personBytes = await astronautPortrait();
const shirtBytes = await tshirt();
const person = await validated(personBytes);
const clothing = await validated(shirtBytes);

const rssBefore = process.memoryUsage().rss;
const loadStart = performance.now();
const engine = await Effect.runPromise(
  Effect.provide(
    Effect.gen(function* () {
      return yield* TryOnEngine;
    }),
    OnnxTryOnEngineLive(),
  ),
);
const loadMs = performance.now() - loadStart;
const rssLoaded = process.memoryUsage().rss;

const baseline = async () => {
  const garment = await sharp(shirtBytes).resize(420).toBuffer();
  await sharp(personBytes).composite([{ input: garment, left: 170, top: 380 }]).jpeg({ quality: 95 }).toBuffer();
};

// Default settings, then every value of every setting in turn (each request differs in one).
const variants: ReadonlyArray<TryOnSettings> = [
  DEFAULT_TRYON_SETTINGS,
  ...TRYON_SETTING_NAMES.flatMap((name) => TRYON_SETTING_VALUES[name].map((value) => ({ ...DEFAULT_TRYON_SETTINGS, [name]: value }))),
];

const tryOnMs: Array<number> = [];
const variantMs: Array<number> = [];
const baselineMs: Array<number> = [];
for (let i = 0; i < runs; i++) {
  baselineMs.push(await time(baseline));
  tryOnMs.push(await time(() => Effect.runPromise(engine.tryOn({ person, clothing, settings: DEFAULT_TRYON_SETTINGS }))));
}
for (const settings of variants) variantMs.push(await time(() => Effect.runPromise(engine.tryOn({ person, clothing, settings }))));

const p50 = percentile(tryOnMs, 50);
const report = {
  machine: `${(await import("node:os")).cpus().length} cores, node ${process.version}`,
  image: "768x1024 JPEG person, 600x700 PNG garment",
  runs,
  tryOn: { p50Ms: Math.round(p50), p95Ms: Math.round(percentile(tryOnMs, 95)), minMs: Math.round(Math.min(...tryOnMs)) },
  allSettingValues: { requests: variants.length, p50Ms: Math.round(percentile(variantMs, 50)), p95Ms: Math.round(percentile(variantMs, 95)) },
  baselineSharpPaste: { p50Ms: Math.round(percentile(baselineMs, 50)) },
  ratioToBaseline: Number((p50 / percentile(baselineMs, 50)).toFixed(1)),
  modelLoadMs: Math.round(loadMs),
  memoryMiB: { rssBeforeLoad: mib(rssBefore), rssAfterLoad: mib(rssLoaded), rssAfterRuns: mib(process.memoryUsage().rss), peakRss: Math.round(process.resourceUsage().maxRSS / 1024) },
  goal: { p50Ms: GOAL_P50_MS, met: p50 <= GOAL_P50_MS },
};
console.log(JSON.stringify(report, null, 2));
if (!report.goal.met) process.exitCode = 1;
