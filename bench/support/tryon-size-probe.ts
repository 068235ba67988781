/**
 * One side of bench/tryon-photo-size.ts, in a process of its own (so its peak RSS is its own):
 * loads the try-on from the source tree given, runs it `runs` times on one photo size, and
 * prints the median, the peak RSS and the longest stall of this process's event loop.
 *
 *   node bench/support/tryon-size-probe.ts ROOT in-process|thread WIDTH HEIGHT RUNS
 */
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import sharp from "sharp";
import { DEFAULT_TRYON_SETTINGS, type TryOnSettings } from "../../src/domain/tryon-settings.ts";
import { astronautPortrait, tshirt } from "../../test/fixtures/tryon/tryon-fixtures.ts";

const [root = ".", mode = "thread", width = "768", height = "1024", runs = "3"] = process.argv.slice(2);
type Run = (person: Uint8Array, clothing: Uint8Array, settings: TryOnSettings) => Promise<{ ok: boolean }>;

const load = async (): Promise<Run> => {
  const tryon = path.resolve(root, "src/adapters/tryon");
  if (mode === "in-process") {
    const { loadTryOnPipeline } = (await import(path.join(tryon, "tryon-pipeline.ts"))) as {
      loadTryOnPipeline: (threads: number) => Promise<{ run: Run; warmUp: () => Promise<void> }>;
    };
    const pipeline = await loadTryOnPipeline(2);
    await pipeline.warmUp();
    return pipeline.run;
  }
  const { startTryOnThread } = (await import(path.join(tryon, "tryon-thread-client.ts"))) as {
    startTryOnThread: (setup: { threads: number }) => Promise<{ run: Run }>;
  };
  return (await startTryOnThread({ threads: 2 })).run;
};

const run = await load();
const person = await sharp(await astronautPortrait())
  .resize(Number(width), Number(height))
  .jpeg({ quality: 80 })
  .toBuffer();
const clothing = await tshirt();
const stalls = monitorEventLoopDelay({ resolution: 10 });
stalls.enable();
const times: number[] = [];
for (let i = 0; i < Number(runs); i++) {
  const started = performance.now();
  const outcome = await run(person, clothing, DEFAULT_TRYON_SETTINGS);
  if (!outcome.ok) throw new Error("the try-on refused the photo");
  times.push(performance.now() - started);
}
stalls.disable();
times.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    p50Ms: Math.round(times[Math.floor(times.length / 2)]!),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    longestStallMs: Math.round(stalls.max / 1e6),
  }),
);
process.exit(0);
