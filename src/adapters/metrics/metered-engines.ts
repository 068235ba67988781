import { Effect, Exit, Option } from "effect";
import type { ImageEngineShape } from "../../ports/engines/image-engine.ts";
import type { OcrEngineShape } from "../../ports/engines/ocr-engine.ts";
import type { TryOnEngineShape } from "../../ports/engines/tryon-engine.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** Failures that say the client's input cannot be used, not that the engine failed. */
const INPUT_REFUSALS = new Set(["InvalidImage", "UnsupportedLanguage", "UnusableTryOnInput"]);

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) return "ok";
  const error = Exit.findErrorOption(exit);
  const tag = Option.isSome(error) ? String((error.value as { _tag?: unknown })._tag) : "";
  if (tag === "EngineBusy") return "queue_full";
  if (tag === "EngineTimeout") return "deadline";
  return INPUT_REFUSALS.has(tag) ? "refused_input" : "error";
};

/**
 * Watches one engine through its port: jobs held (running or waiting), the wait beyond its slots,
 * refusals (queue full, deadline) and time per job. `capacity` is the slot count the composition
 * gave the engine. A job whose caller gave up at the deadline may still hold its slot inside the
 * engine; from the port it has left, so the depth then reads a little low.
 */
const makeEngineMeter = (metrics: ServiceMetrics, engine: string, capacity: number) => {
  let inFlight = 0;
  metrics.engineCapacity.set({ engine }, capacity);
  metrics.engineInFlight.set({ engine }, 0);
  metrics.engineQueueDepth.set({ engine }, 0);
  for (const reason of ["queue_full", "deadline"]) metrics.engineRefusals.inc({ engine, reason }, 0);
  const publish = () => {
    metrics.engineInFlight.set({ engine }, inFlight);
    metrics.engineQueueDepth.set({ engine }, Math.max(0, inFlight - capacity));
  };
  return <A, E, R>(job: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const started = performance.now();
      inFlight += 1;
      publish();
      return job.pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            inFlight -= 1;
            publish();
            const outcome = outcomeOf(exit);
            metrics.engineDuration.observe({ engine, outcome }, (performance.now() - started) / 1000);
            if (outcome === "queue_full" || outcome === "deadline") metrics.engineRefusals.inc({ engine, reason: outcome });
          }),
        ),
      );
    });
};

export const meteredImageEngine =
  (metrics: ServiceMetrics, capacity: number) =>
  (engine: ImageEngineShape): ImageEngineShape => {
    const meter = makeEngineMeter(metrics, "image", capacity);
    return {
      ...engine,
      render: (image, template, options) => meter(engine.render(image, template, options)),
      renderDesign: (design, inputs) => meter(engine.renderDesign(design, inputs)),
    };
  };

export const meteredOcrEngine =
  (metrics: ServiceMetrics, capacity: number) =>
  (engine: OcrEngineShape): OcrEngineShape => {
    const meter = makeEngineMeter(metrics, "ocr", capacity);
    return { ...engine, recognize: (request) => meter(engine.recognize(request)) };
  };

export const meteredTryOnEngine =
  (metrics: ServiceMetrics, capacity: number) =>
  (engine: TryOnEngineShape): TryOnEngineShape => {
    const meter = makeEngineMeter(metrics, "tryon", capacity);
    return { ...engine, tryOn: (request) => meter(engine.tryOn(request)) };
  };
