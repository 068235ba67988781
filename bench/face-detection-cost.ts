import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { Effect, ManagedRuntime } from "effect";
import sharp from "sharp";
import { BlazeFaceDetectorLive } from "../src/adapters/faces/blazeface-face-detector.ts";
import { makeSharpImageEngine } from "../src/adapters/image/sharp-image-engine.ts";
import { makeSharpImageInspector } from "../src/adapters/image/sharp-image-inspector.ts";
import type { Focus } from "../src/domain/crop-window.ts";
import { findTemplate } from "../src/domain/template-catalog/template-catalog.ts";
import { FaceDetector } from "../src/ports/engines/face-detector.ts";
import type { ValidatedImage } from "../src/ports/engines/image.ts";
import { DependencyUnavailable } from "../src/ports/errors.ts";
import { faceSet } from "../test/fixtures/faces/face-set.ts";

/**
 * What face detection costs a crop to fill: `social/instagram-square` (1080×1080) on the face set
 * (test/fixtures/faces) scaled to camera size (longer side 3000, JPEG), each photo rendered with
 * focus "auto" (faces first: decode, detection in its thread, crop) and "attention" (the old
 * behaviour, no detection), alternately, one request at a time, in the same run. Reported: each
 * mode's p50/p95, the added time at p95 and its ratio to the template's own engine time, and the
 * longest event-loop stall in each mode; and the same for the CPU time the process spent on each
 * request (every thread: libvips, the face thread), which other work on a shared machine disturbs
 * far less than wall time; and the CPU the event loop's own thread spent on each request, the
 * longest it could have held the loop itself, which a loaded machine's waits (counted in the
 * stalls) do not inflate.
 */
const TEMPLATE = { templateType: "social", template: "instagram-square" } as const;
const LONGER_SIDE = 3000;

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
};

export const measureFaceDetectionCost = async (rounds = Number(process.env["ROUNDS"] ?? 6)) => {
  const lookup = findTemplate(TEMPLATE.templateType, TEMPLATE.template);
  if (!lookup.found) throw new Error("benchmark template missing from the catalog");
  const template = lookup.template;
  // FACE_NICENESS: the face thread's niceness below the event loop (default: the service's).
  const niceness = process.env["FACE_NICENESS"];
  const runtime = ManagedRuntime.make(BlazeFaceDetectorLive(niceness === undefined ? {} : { niceness: Number(niceness) }));
  try {
    const faces = await runtime.runPromise(
      Effect.gen(function* () {
        return yield* FaceDetector;
      }),
    );
    const noSegmenter = { segment: () => Effect.fail(new DependencyUnavailable({ dependency: "person-segmenter (not used by this benchmark)" })) };
    const engine = makeSharpImageEngine(noSegmenter, { faces });
    const inspector = makeSharpImageInspector();
    const images: ReadonlyArray<ValidatedImage> = await Promise.all(
      (await faceSet()).map(async (photo) => {
        const scale = LONGER_SIDE / Math.max(photo.width, photo.height);
        const bytes = await sharp(photo.bytes)
          .rotate()
          .resize(Math.round(photo.width * scale), Math.round(photo.height * scale))
          .jpeg({ quality: 88 })
          .toBuffer();
        return Effect.runPromise(inspector.inspect(bytes));
      }),
    );
    const modes: ReadonlyArray<{ readonly name: "with" | "without"; readonly focus: Focus }> = [
      { name: "with", focus: "auto" },
      { name: "without", focus: "attention" },
    ];
    const latencies = { with: [] as Array<number>, without: [] as Array<number> };
    const cpu = { with: [] as Array<number>, without: [] as Array<number> };
    const loopCpu = { with: [] as Array<number>, without: [] as Array<number> };
    const stalls = { with: 0, without: 0 };
    const render = async (image: ValidatedImage, focus: Focus) => {
      const [started, cpuBefore, loopBefore] = [performance.now(), process.cpuUsage(), process.threadCpuUsage()];
      await Effect.runPromise(engine.render(image, template, { focus }));
      const [spent, loopSpent] = [process.cpuUsage(cpuBefore), process.threadCpuUsage(loopBefore)];
      return { wall: performance.now() - started, cpu: (spent.user + spent.system) / 1000, loopCpu: (loopSpent.user + loopSpent.system) / 1000 };
    };
    for (const image of images) for (const mode of modes) await render(image, mode.focus); // warm-up
    for (let round = 0; round < rounds; round++)
      for (const image of images)
        for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
          const loop = monitorEventLoopDelay({ resolution: 5 });
          loop.enable();
          const { wall, cpu: cpuMs, loopCpu: loopMs } = await render(image, mode.focus);
          latencies[mode.name].push(wall);
          cpu[mode.name].push(cpuMs);
          loopCpu[mode.name].push(loopMs);
          loop.disable();
          stalls[mode.name] = Math.max(stalls[mode.name], loop.max / 1e6);
        }
    const p95 = { with: percentile(latencies.with, 0.95), without: percentile(latencies.without, 0.95) };
    const added = p95.with - p95.without;
    const cpu95 = { with: percentile(cpu.with, 0.95), without: percentile(cpu.without, 0.95) };
    return {
      template: `${TEMPLATE.templateType}/${TEMPLATE.template}`,
      photos: images.length,
      input: `face set scaled to a ${LONGER_SIDE}-pixel longer side, JPEG`,
      renders: latencies.with.length + latencies.without.length,
      latencyMs: {
        withDetection: { p50: Math.round(percentile(latencies.with, 0.5)), p95: Math.round(p95.with) },
        withoutDetection: { p50: Math.round(percentile(latencies.without, 0.5)), p95: Math.round(p95.without) },
      },
      addedAtP95Ms: Math.round(added),
      addedShareOfEngineTime: Number((added / p95.without).toFixed(3)),
      ratioWithToWithout: Number((p95.with / p95.without).toFixed(3)),
      cpuMs: {
        withDetection: { p50: Math.round(percentile(cpu.with, 0.5)), p95: Math.round(cpu95.with) },
        withoutDetection: { p50: Math.round(percentile(cpu.without, 0.5)), p95: Math.round(cpu95.without) },
        addedAtP95: Math.round(cpu95.with - cpu95.without),
        addedShareAtP50: Number(((percentile(cpu.with, 0.5) - percentile(cpu.without, 0.5)) / percentile(cpu.without, 0.5)).toFixed(3)),
      },
      longestLoopStallMs: { withDetection: Math.round(stalls.with), withoutDetection: Math.round(stalls.without) },
      eventLoopThreadCpuMs: {
        withDetection: { p95: Number(percentile(loopCpu.with, 0.95).toFixed(1)), max: Number(Math.max(...loopCpu.with).toFixed(1)) },
        withoutDetection: { p95: Number(percentile(loopCpu.without, 0.95).toFixed(1)), max: Number(Math.max(...loopCpu.without).toFixed(1)) },
      },
    };
  } finally {
    await runtime.dispose();
  }
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await measureFaceDetectionCost(), null, 2));
}
