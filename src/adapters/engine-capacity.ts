import { availableParallelism } from "node:os";
import { Effect, Exit, Fiber, Semaphore } from "effect";
import { EngineBusy, EngineTimeout } from "../ports/errors.ts";

export interface EngineCapacityOptions {
  /** Jobs that run at once; default the number of cores (each job keeps a core busy). */
  readonly concurrency?: number;
  /** Jobs that may wait for a slot; one more is refused with EngineBusy. Default 32. */
  readonly maxQueue?: number;
  /** Time from admission (waiting included) to result; past it the caller gets EngineTimeout. Default 30 s. */
  readonly deadlineMs?: number;
}

export interface EngineCapacity {
  readonly run: <A, E, R>(job: Effect.Effect<A, E, R>) => Effect.Effect<A, E | EngineBusy | EngineTimeout, R>;
  /** Jobs running and waiting now. */
  readonly load: () => { readonly running: number; readonly queued: number };
}

/**
 * A bounded work queue in front of a CPU-bound engine: a fixed number of slots, a bounded
 * waiting line, and a deadline per job. A job that has started keeps its slot until it really
 * ends, even after its caller gave up (deadline or disconnect): native image work cannot be
 * cancelled midway, and freeing the slot early would let more work onto busy cores. A job still
 * waiting when its caller gives up is dropped without running.
 */
export const makeEngineCapacity = (options: EngineCapacityOptions = {}): EngineCapacity => {
  const concurrency = Math.max(1, options.concurrency ?? availableParallelism());
  const maxQueue = Math.max(0, options.maxQueue ?? 32);
  const deadlineMs = options.deadlineMs ?? 30_000;
  const slots = Semaphore.makeUnsafe(concurrency);
  let running = 0;
  let admitted = 0;
  /** Moving average of job run times, for a Retry-After that says when the line will have moved. */
  let meanJobMs = 0;

  const retryAfterSeconds = () => Math.max(1, Math.ceil(((admitted / concurrency) * meanJobMs) / 1000));

  const run = <A, E, R>(job: Effect.Effect<A, E, R>): Effect.Effect<A, E | EngineBusy | EngineTimeout, R> =>
    Effect.suspend((): Effect.Effect<A, E | EngineBusy | EngineTimeout, R> => {
      if (admitted >= concurrency + maxQueue) return Effect.fail(new EngineBusy({ retryAfterSeconds: retryAfterSeconds() }));
      admitted += 1;
      let started = false;
      const inSlot = Effect.suspend(() => {
        started = true;
        running += 1;
        const startedAt = performance.now();
        return Effect.ensuring(
          job,
          Effect.sync(() => {
            running -= 1;
            const took = performance.now() - startedAt;
            meanJobMs = meanJobMs === 0 ? took : 0.8 * meanJobMs + 0.2 * took;
          }),
        );
      });
      const work = Semaphore.withPermit(slots)(inSlot).pipe(Effect.ensuring(Effect.sync(() => (admitted -= 1))));
      return Effect.flatMap(Effect.forkDetach(work), (fiber) =>
        Fiber.join(fiber).pipe(
          Effect.timeoutOrElse({ duration: deadlineMs, orElse: () => Effect.fail(new EngineTimeout({ deadlineMs })) }),
          Effect.onExit((exit) => (Exit.isFailure(exit) && !started ? Fiber.interrupt(fiber) : Effect.void)),
        ),
      );
    });

  return { run, load: () => ({ running, queued: admitted - running }) };
};
