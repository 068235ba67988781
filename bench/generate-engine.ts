import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { Effect, Layer } from "effect";
import { BlazeFaceDetectorLive } from "../src/adapters/faces/blazeface-face-detector.ts";
import { boundedImageEngineLayer } from "../src/adapters/image/bounded-image-engine.ts";
import { sharpImageEngineLayer } from "../src/adapters/image/sharp-image-engine.ts";
import { sharpImageInspectorLayer } from "../src/adapters/image/sharp-image-inspector.ts";
import { findTemplate } from "../src/domain/template-catalog/template-catalog.ts";
import { ImageEngine } from "../src/ports/engines/image-engine.ts";
import { ImageInspector } from "../src/ports/engines/image-inspector.ts";
import { PersonSegmenter } from "../src/ports/engines/person-segmenter.ts";
import { DependencyUnavailable } from "../src/ports/errors.ts";
import { grainyPhotoJpeg } from "../test/support/image-fixtures.ts";

/**
 * The in-process baseline for POST /generate: inspect + render of `social/instagram-square` on a
 * 3000×2000 JPEG, through the same engine stack the service wires (bounded queue over sharp), with
 * a fixed number of requests in flight. The HTTPS benchmark divides its throughput by this one,
 * measured in the same run, so that the ratio is the cost of everything around the engine.
 */

export interface EngineBaselineOptions {
  /** Requests in flight; default 2 × cores. */
  readonly concurrency?: number;
  /** Measured time after warm-up; default 10 s. */
  readonly durationMs?: number;
  readonly warmupMs?: number;
}

export interface EngineBaseline {
  readonly template: string;
  readonly input: { readonly width: number; readonly height: number; readonly bytes: number };
  readonly concurrency: number;
  readonly completed: number;
  readonly elapsedMs: number;
  readonly perSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly max: number };
}

export const BENCH_TEMPLATE = { templateType: "social", template: "instagram-square" } as const;

/** The benchmark template needs no mask: a segmenter that is never called stands in. */
const noSegmenter = Layer.succeed(PersonSegmenter)({
  segment: () => Effect.fail(new DependencyUnavailable({ dependency: "person-segmenter (not used by this benchmark)" })),
});

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

export const measureEngineBaseline = async (options: EngineBaselineOptions = {}): Promise<EngineBaseline> => {
  const concurrency = options.concurrency ?? 2 * availableParallelism();
  const durationMs = options.durationMs ?? 10_000;
  const warmupMs = options.warmupMs ?? 2_000;
  const lookup = findTemplate(BENCH_TEMPLATE.templateType, BENCH_TEMPLATE.template);
  if (!lookup.found) throw new Error("benchmark template missing from the catalog");
  const template = lookup.template;
  const bytes = await grainyPhotoJpeg();

  const layer = Layer.mergeAll(
    sharpImageInspectorLayer(),
    boundedImageEngineLayer({ maxQueue: concurrency }).pipe(
      Layer.provide(sharpImageEngineLayer()),
      Layer.provide(Layer.merge(noSegmenter, BlazeFaceDetectorLive())),
    ),
  );

  const program = Effect.gen(function* () {
    const inspector = yield* ImageInspector;
    const engine = yield* ImageEngine;
    const generate = Effect.flatMap(inspector.inspect(bytes), (image) => engine.render(image, template));

    /** Keeps `concurrency` requests in flight until `until`; returns each one's latency. */
    const load = (until: number) =>
      Effect.promise(async () => {
        const latencies: Array<number> = [];
        const worker = async () => {
          while (performance.now() < until) {
            const started = performance.now();
            await Effect.runPromise(generate);
            latencies.push(performance.now() - started);
          }
        };
        await Promise.all(Array.from({ length: concurrency }, worker));
        return latencies;
      });

    yield* load(performance.now() + warmupMs);
    const started = performance.now();
    const latencies = yield* load(started + durationMs);
    const elapsedMs = performance.now() - started;
    const sorted = [...latencies].sort((a, b) => a - b);
    const baseline: EngineBaseline = {
      template: `${template.templateType}/${template.template}`,
      input: { width: 3000, height: 2000, bytes: bytes.length },
      concurrency,
      completed: latencies.length,
      elapsedMs: Math.round(elapsedMs),
      perSecond: Number(((latencies.length * 1000) / elapsedMs).toFixed(2)),
      latencyMs: { p50: Math.round(percentile(sorted, 0.5)), p95: Math.round(percentile(sorted, 0.95)), max: Math.round(sorted.at(-1) ?? 0) },
    };
    return baseline;
  });

  return Effect.runPromise(program.pipe(Effect.provide(layer)));
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await measureEngineBaseline(), null, 2));
}
