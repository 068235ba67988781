/**
 * Try-on latency at 768×1024 on this machine (2 cores): p50 and p95 over repeated requests,
 * the engine's load time (read, verify, convert, warm) and its memory, with the load average
 * while it ran; and beside them the quality figures of tryon-metrics.ts on the fixture photos
 * (spill, sleeve angle to the upper arm, arm pixels in front of the torso kept, torso IoU,
 * coverage). Baseline, measured in the same run: a plain sharp paste of the product shot onto
 * the photo (decode, resize, composite, encode), the floor that any try-on pays for image I/O.
 * Goal: p50 ≤ 1 s.
 *
 *   npm run bench:tryon -- [runs]
 */
import { loadavg } from "node:os";
import { Context, Effect, Layer, Scope } from "effect";
import sharp from "sharp";
import { SelfiePersonSegmenterLive } from "../src/adapters/segmentation/selfie-person-segmenter.ts";
import { SILHOUETTE_MARGIN } from "../src/adapters/tryon/composite-graph.ts";
import { OnnxTryOnEngineLive } from "../src/adapters/tryon/onnx-tryon-engine.ts";
import { DEFAULT_TRYON_SETTINGS, TRYON_SETTING_NAMES, TRYON_SETTING_VALUES, type TryOnSettings } from "../src/domain/tryon-settings.ts";
import { PersonSegmenter } from "../src/ports/engines/person-segmenter.ts";
import { TryOnEngine } from "../src/ports/engines/tryon-engine.ts";
import * as m from "../test/fixtures/tryon/image-metrics.ts";
import { astronaut, astronautPortrait, crossedArmFigure, crossedArmTruth, tshirtParts } from "../test/fixtures/tryon/tryon-fixtures.ts";
import { and, andNot, GARMENT_CHANGE, sleeveAngles, unchangedShare } from "../test/fixtures/tryon/tryon-metrics.ts";

const GOAL_P50_MS = 1000;
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
const shirtBytes = await tshirtParts();
const person = await m.validated(personBytes);
const clothing = await m.validated(shirtBytes);
const loadAtStart = loadavg()[0]!;

const rssBefore = process.memoryUsage().rss;
const loadStart = performance.now();
// The engine's layer stays open for the whole bench: it owns the try-on thread.
const engine = Context.get(await Effect.runPromise(Layer.buildWithScope(OnnxTryOnEngineLive(), await Effect.runPromise(Scope.make()))), TryOnEngine);
const loadMs = performance.now() - loadStart;
const rssLoaded = process.memoryUsage().rss;
const segmenter = Context.get(
  await Effect.runPromise(Layer.buildWithScope(SelfiePersonSegmenterLive(), await Effect.runPromise(Scope.make()))),
  PersonSegmenter,
);

const baseline = async () => {
  const garment = await sharp(shirtBytes).resize(420).toBuffer();
  await sharp(personBytes)
    .composite([{ input: garment, left: 170, top: 380 }])
    .jpeg({ quality: 95 })
    .toBuffer();
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

const loadAtEnd = loadavg()[0]!;

/** The quality figures on one fixture photo; `forearm` is the drawn person's ground truth. */
const quality = async (bytes: Uint8Array, truth?: { readonly torso: m.Mask; readonly forearm: m.Mask }) => {
  const result = await Effect.runPromise(engine.tryOn({ person: await m.validated(bytes), clothing, settings: DEFAULT_TRYON_SETTINGS }));
  const input = await m.pixels(bytes);
  const output = await m.pixels(result.image.bytes);
  const silhouette = (await Effect.runPromise(segmenter.segment(await m.validated(bytes)))).alpha.map((a) => (a >= 128 ? 1 : 0));
  const torso = m.polygonMask(input, result.detection.torso);
  const round = (v: number, digits = 3) => Number(v.toFixed(digits));
  return {
    spillPercent: round(100 * m.spill(m.changed(input, output, GARMENT_CHANGE), silhouette, input.width, SILHOUETTE_MARGIN + 2), 2),
    sleeveDegrees: Object.fromEntries(sleeveAngles(input, output, result.detection.keypoints).map((a) => [a.side, round(a.degrees, 1)])),
    torsoIoU: round(m.iou(m.changed(input, output, GARMENT_CHANGE), truth === undefined ? torso : andNot(torso, truth.forearm))),
    ...(truth === undefined ? {} : { armInFrontKeptPercent: round(100 * unchangedShare(input, output, and(truth.forearm, truth.torso)), 1) }),
    coverage: round(result.coverage),
  };
};
const metrics = {
  "astronaut 512x512 (NASA, public domain)": await quality(astronaut()),
  "astronaut 768x1024": await quality(personBytes),
  "drawn person, forearm across the torso": await quality(await crossedArmFigure(), await crossedArmTruth()),
};

const p50 = percentile(tryOnMs, 50);
const report = {
  machine: `${(await import("node:os")).cpus().length} cores, node ${process.version}`,
  loadAverage1m: { start: Number(loadAtStart.toFixed(2)), end: Number(loadAtEnd.toFixed(2)) },
  image: "768x1024 JPEG person, 600x700 PNG garment (T-shirt, sleeves colour-coded)",
  runs,
  tryOn: { p50Ms: Math.round(p50), p95Ms: Math.round(percentile(tryOnMs, 95)), minMs: Math.round(Math.min(...tryOnMs)) },
  allSettingValues: { requests: variants.length, p50Ms: Math.round(percentile(variantMs, 50)), p95Ms: Math.round(percentile(variantMs, 95)) },
  baselineSharpPaste: { p50Ms: Math.round(percentile(baselineMs, 50)) },
  ratioToBaseline: Number((p50 / percentile(baselineMs, 50)).toFixed(1)),
  modelLoadMs: Math.round(loadMs),
  memoryMiB: {
    rssBeforeLoad: mib(rssBefore),
    rssAfterLoad: mib(rssLoaded),
    rssAfterRuns: mib(process.memoryUsage().rss),
    peakRss: Math.round(process.resourceUsage().maxRSS / 1024),
  },
  quality: metrics,
  goal: { p50Ms: GOAL_P50_MS, met: p50 <= GOAL_P50_MS },
};
console.log(JSON.stringify(report, null, 2));
if (!report.goal.met) process.exitCode = 1;
process.exit();
