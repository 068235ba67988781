/**
 * Images per second of our tesseract.js pool against the native Debian `tesseract` CLI on the
 * same generated corpus, in one run, with the character error rate of both.
 *
 *   npx tsx bench/ocr-throughput.ts [rounds]
 *
 * Both sides get the page's language and the same parallelism (one per core); the CLI runs
 * with OMP_THREAD_LIMIT=1 as Tesseract advises for parallel processes, in its default page
 * segmentation (PSM 3), which the pool uses too. Rounds alternate which side goes first, so
 * that load from elsewhere on the machine falls on both. Needs Debian packages:
 * tesseract-ocr tesseract-ocr-{eng,deu,fra,spa,ita,por,nld,chi-sim,jpn,ara},
 * fonts-dejavu-core fonts-noto-cjk fonts-noto-core. Goal: ratio >= 0.8, CER <= native + 0.5.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Effect } from "effect";
import { TesseractOcrEngine } from "../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { queuedOcrEngineLayer } from "../src/queued-ocr-engine.ts";
import { type CerCount, cerCount, cerPercent } from "../test/support/character-error-rate.ts";
import { engineOf, readSample } from "../test/support/ocr-accuracy.ts";
import { type CorpusSample, fullCorpus, missingFontFamilies, renderSample } from "../test/support/ocr-corpus.ts";
import { corpusLanguages } from "../test/support/ocr-corpus-texts.ts";
import { nativeLanguages } from "../test/support/ocr-native-cli.ts";

const run = promisify(execFile);
const rounds = Number(process.argv[2] ?? 2);
const cores = os.availableParallelism();

/** Runs `task` over `items`, `parallelism` at a time, in order of submission. */
const eachLimited = async <A>(items: ReadonlyArray<A>, parallelism: number, task: (item: A) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallelism }, async () => {
      while (next < items.length) await task(items[next++] as A);
    }),
  );
};

/** Pages neither tilted nor turned, where the engines differ in reading rather than in preprocessing, and the rest. */
const groups = ["straight", "tilted or turned"] as const;
type Group = (typeof groups)[number];
const groupOf = (sample: CorpusSample): Group => (sample.variant.startsWith("rotated") ? "tilted or turned" : "straight");

interface Cost {
  seconds: number;
  /** CPU seconds spent: on a shared machine a steadier measure of cost than the wall clock. */
  cpuSeconds: number;
  images: number;
}
interface Side {
  readonly cost: Record<Group, Cost>;
  readonly counts: Map<string, CerCount[]>;
}
const emptySide = (): Side => ({
  cost: { straight: { seconds: 0, cpuSeconds: 0, images: 0 }, "tilted or turned": { seconds: 0, cpuSeconds: 0, images: 0 } },
  counts: new Map(),
});
const record = (side: Side, sample: CorpusSample, count: CerCount) => {
  for (const key of [sample.language, groupOf(sample)]) side.counts.set(key, [...(side.counts.get(key) ?? []), count]);
};
const charge = (side: Side | undefined, group: Group, images: number, seconds: number, cpuSeconds: number) => {
  if (side === undefined) return;
  side.cost[group].seconds += seconds;
  side.cost[group].cpuSeconds += cpuSeconds;
  side.cost[group].images += images;
};

const installed = await nativeLanguages();
const languages = corpusLanguages.filter((language) => installed.has(language) && missingFontFamilies([language]).length === 0);
const skipped = corpusLanguages.filter((language) => !languages.includes(language));
if (languages.length === 0) {
  console.error("No language has both the native tesseract data and the fonts; install the packages listed in this file's header.");
  process.exit(1);
}

const samples: ReadonlyArray<CorpusSample> = await Promise.all(fullCorpus(languages).map(renderSample));
const folder = await mkdtemp(path.join(os.tmpdir(), "ocr-throughput-"));
const files = new Map<CorpusSample, string>();
for (const sample of samples) {
  const file = path.join(folder, `${sample.id}.png`);
  await writeFile(file, sample.png);
  files.set(sample, file);
}

const ours = emptySide();
const native = emptySide();

const runNative = async (batch: ReadonlyArray<CorpusSample>, side: Side | undefined) => {
  const started = performance.now();
  let cpuSeconds = 0;
  await eachLimited(batch, cores, async (sample) => {
    // bash's `times` reports the CPU time of its children: the tesseract process.
    const script = 'tesseract "$1" stdout -l "$2" --psm 3 2>/dev/null; echo; times';
    const { stdout } = await run("bash", ["-c", script, "bash", files.get(sample) ?? "", sample.language], {
      env: { ...process.env, OMP_THREAD_LIMIT: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    const lines = stdout.trimEnd().split("\n");
    const children = (lines.at(-1) ?? "").match(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/);
    cpuSeconds += children ? 60 * Number(children[1]) + Number(children[2]) + 60 * Number(children[3]) + Number(children[4]) : 0;
    if (side) record(side, sample, cerCount(lines.slice(0, -2).join("\n"), sample.groundTruth));
  });
  return { seconds: (performance.now() - started) / 1000, cpuSeconds };
};

await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const engine = yield* engineOf(queuedOcrEngineLayer()(TesseractOcrEngine.layer({ workers: cores, languages })));
      const runOurs = (batch: ReadonlyArray<CorpusSample>, side: Side | undefined) =>
        Effect.gen(function* () {
          const started = performance.now();
          const cpu = process.cpuUsage();
          const outcomes = yield* Effect.forEach(batch, (sample) => readSample(engine, sample, sample.language), { concurrency: cores });
          const used = process.cpuUsage(cpu);
          if (side) for (const outcome of outcomes) record(side, outcome.sample, outcome.count);
          return { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
        });
      const pass = (who: "ours" | "native", timed: boolean) =>
        Effect.forEach(groups, (group) =>
          Effect.gen(function* () {
            const batch = samples.filter((sample) => groupOf(sample) === group);
            const side = timed ? (who === "ours" ? ours : native) : undefined;
            const cost = who === "ours" ? yield* runOurs(batch, side) : yield* Effect.promise(() => runNative(batch, side));
            charge(side, group, batch.length, cost.seconds, cost.cpuSeconds);
          }),
        );
      // One untimed pass each: the pool starts extra workers on first use, the OS caches the CLI's files.
      yield* pass("ours", false);
      yield* pass("native", false);
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? (["ours", "native"] as const) : (["native", "ours"] as const);
        for (const who of order) yield* pass(who, true);
      }
    }),
  ),
);
await rm(folder, { recursive: true, force: true });

const pad = (text: string | number, width: number) => String(text).padStart(width);
const cer = (side: Side, key: string) => cerPercent(side.counts.get(key) ?? []);
const total = (side: Side): Cost =>
  Object.values(side.cost).reduce((sum, cost) => ({
    seconds: sum.seconds + cost.seconds,
    cpuSeconds: sum.cpuSeconds + cost.cpuSeconds,
    images: sum.images + cost.images,
  }));
const allCounts = (side: Side) => languages.flatMap((language) => side.counts.get(language) ?? []);

console.log(`\nOCR throughput and accuracy: ${samples.length} pages x ${rounds} rounds, ${cores} in parallel on each side`);
console.log(`${"pages".padEnd(18)}${pad("count", 6)}${pad("CER pool %", 12)}${pad("CER native %", 14)}`);
for (const key of [...languages, ...groups]) {
  const count = samples.filter((sample) => sample.language === key || groupOf(sample) === key).length;
  console.log(`${key.padEnd(18)}${pad(count, 6)}${pad(cer(ours, key).toFixed(2), 12)}${pad(cer(native, key).toFixed(2), 14)}`);
}
const oursCer = cerPercent(allCounts(ours));
const nativeCer = cerPercent(allCounts(native));
console.log(`${"all".padEnd(18)}${pad(samples.length, 6)}${pad(oursCer.toFixed(2), 12)}${pad(nativeCer.toFixed(2), 14)}`);

console.log(`\n${"images/s (CPU s/image)".padEnd(26)}${pad("pool", 16)}${pad("native", 16)}${pad("ratio", 8)}${pad("CPU ratio", 11)}`);
const costRow = (name: string, a: Cost, b: Cost) => {
  const rate = (cost: Cost) => cost.images / cost.seconds;
  const cpu = (cost: Cost) => cost.cpuSeconds / cost.images;
  const cell = (cost: Cost) => `${rate(cost).toFixed(2)} (${cpu(cost).toFixed(3)})`;
  console.log(`${name.padEnd(26)}${pad(cell(a), 16)}${pad(cell(b), 16)}${pad((rate(a) / rate(b)).toFixed(2), 8)}${pad((cpu(b) / cpu(a)).toFixed(2), 11)}`);
  return rate(a) / rate(b);
};
for (const group of groups) costRow(group, ours.cost[group], native.cost[group]);
const ratio = costRow("all", total(ours), total(native));
console.log("(ratio: pool images/s over native; CPU ratio: native CPU per image over pool's, which load from other processes does not move)");
console.log(`\nthroughput ratio (pool / native): ${ratio.toFixed(2)}  goal >= 0.80: ${ratio >= 0.8 ? "met" : "NOT met"}`);
console.log(`CER pool - native: ${(oursCer - nativeCer).toFixed(2)} points  goal <= +0.50: ${oursCer <= nativeCer + 0.5 ? "met" : "NOT met"}`);
if (skipped.length > 0) console.log(`skipped (no native data or fonts): ${skipped.join(", ")}`);
