import { Effect, Layer } from "effect";
import { TRYON_METHOD, TryOnEngine, UnusableTryOnInput } from "../../ports/engines/tryon-engine.ts";
import { DependencyUnavailable, InvalidImage } from "../../ports/errors.ts";
import { makeEngineCapacity } from "../engine-capacity.ts";
import { startTryOnThread } from "./tryon-thread-client.ts";

export interface OnnxTryOnEngineOptions {
  /** onnxruntime intra-op threads per inference (default 2: this service's machines have 2 cores). */
  readonly threads?: number;
  /**
   * Requests allowed to wait while one runs; beyond that, EngineBusy. Default: no count; a request
   * waits when the deadline can serve it (engine-capacity.ts), and the memory admission budget
   * bounds what the waiting bodies hold (middleware/engine-admission.ts).
   */
  readonly maxWaiting?: number;
  /** Deadline per request, waiting included (default 30 s). */
  readonly deadlineMs?: number;
}

/**
 * The try-on engine: MoveNet, selfie segmentation and the warp/compositing graphs on
 * onnxruntime-node, all in the try-on's own thread (tryon-thread.ts), so no photo holds up the
 * event loop. Models are verified, converted and warmed while the layer is built. One try-on
 * runs at a time (each already uses every core) behind the shared bounded work queue; an
 * inference under way when its deadline passes cannot be cut short and keeps its slot.
 */
export const OnnxTryOnEngineLive = (options: OnnxTryOnEngineOptions = {}) =>
  Layer.effect(TryOnEngine)(
    Effect.gen(function* () {
      // Models load and warm in the try-on thread while the layer is built; the thread goes with the layer.
      const thread = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => startTryOnThread({ threads: options.threads ?? 2 }),
          catch: (cause) => new DependencyUnavailable({ dependency: "try-on models", cause }),
        }),
        (started) => Effect.promise(() => started.terminate()),
      );
      const capacity = makeEngineCapacity({
        concurrency: 1,
        ...(options.maxWaiting === undefined ? {} : { maxQueue: options.maxWaiting }),
        deadlineMs: options.deadlineMs ?? 30_000,
      });

      return {
        tryOn: ({ person, clothing, settings }) =>
          Effect.gen(function* () {
            const outcome = yield* capacity.run(
              Effect.tryPromise({
                try: () => thread.run(person.bytes, clothing.bytes, settings),
                catch: (cause) => new DependencyUnavailable({ dependency: "try-on thread", cause }),
              }),
            );
            if (outcome.ok) {
              const { image, coverage, confidence, keypoints, torso, garment } = outcome;
              return { image, settings, coverage, method: TRYON_METHOD, confidence, detection: { keypoints, torso, garment } };
            }
            if (outcome.code === "UNDECODABLE") return yield* new InvalidImage({ message: outcome.message });
            return yield* new UnusableTryOnInput({ code: outcome.code, field: outcome.field, message: outcome.message });
          }),
      };
    }),
  );
