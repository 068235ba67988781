import { Effect, Layer, Semaphore } from "effect";
import { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage } from "../../ports/errors.ts";
import { TryOnEngine, UnusableTryOnInput } from "../../ports/tryon-engine.ts";
import { loadTryOnPipeline } from "./tryon-pipeline.ts";

export interface OnnxTryOnEngineOptions {
  /** onnxruntime intra-op threads per inference (default 2: this service's machines have 2 cores). */
  readonly threads?: number;
  /** Requests allowed to wait while one runs; beyond that, EngineBusy (default 4). */
  readonly maxWaiting?: number;
  /** Deadline per request, waiting included (default 30 s). */
  readonly deadlineMs?: number;
  /** Told to clients when busy (default 5 s). */
  readonly retryAfterSeconds?: number;
}

/**
 * The try-on engine: MoveNet, selfie segmentation and the warp/compositing graphs on
 * onnxruntime-node. Models are verified, converted and warmed while the layer is built. One
 * try-on runs at a time (each already uses every core); a bounded queue waits behind it.
 * A request past its deadline fails with EngineTimeout; the inference under way cannot be cut
 * short and finishes in the background.
 */
export const OnnxTryOnEngineLive = (options: OnnxTryOnEngineOptions = {}) =>
  Layer.effect(TryOnEngine)(
    Effect.gen(function* () {
      const deadlineMs = options.deadlineMs ?? 30_000;
      const maxWaiting = options.maxWaiting ?? 4;
      const retryAfterSeconds = options.retryAfterSeconds ?? 5;
      const pipeline = yield* Effect.tryPromise({
        try: async () => {
          const loaded = await loadTryOnPipeline(options.threads ?? 2);
          await loaded.warmUp();
          return loaded;
        },
        catch: (cause) => new DependencyUnavailable({ dependency: "try-on models", cause }),
      });
      const slot = yield* Semaphore.make(1);
      // Requests admitted: the one running plus those queued behind it.
      let admitted = 0;

      return {
        tryOn: ({ person, clothing, settings }) =>
          Effect.gen(function* () {
            if (admitted >= 1 + maxWaiting) return yield* new EngineBusy({ retryAfterSeconds });
            admitted++;
            const outcome = yield* slot
              .withPermits(1)(Effect.promise(() => pipeline.run(person.bytes, clothing.bytes, settings)))
              .pipe(
                Effect.ensuring(Effect.sync(() => void admitted--)),
                Effect.timeoutOrElse({ duration: deadlineMs, orElse: () => Effect.fail(new EngineTimeout({ deadlineMs })) }),
              );
            if (outcome.ok) {
              return { image: outcome.image, settings, detection: { keypoints: outcome.keypoints, torso: outcome.torso } };
            }
            if (outcome.code === "UNDECODABLE") return yield* new InvalidImage({ message: outcome.message });
            return yield* new UnusableTryOnInput({ code: outcome.code, field: outcome.field, message: outcome.message });
          }),
      };
    }),
  );
