import { availableParallelism } from "node:os";
import { Effect, Exit, Fiber } from "effect";
import { EngineTenant } from "../ports/engines/engine-tenant.ts";
import { EngineBusy, EngineTimeout } from "../ports/errors.ts";

/**
 * EngineCapacity: the one admission mechanism every CPU-bound engine sits behind (image render,
 * OCR, try-on). To put an engine behind it:
 *
 *   const capacity = makeEngineCapacity({ concurrency, deadlineMs });
 *   const recognize = (image) => capacity.run(engine.recognize(image));
 *
 * `run(job)` waits for a slot and runs the job in it. It fails with
 * - `EngineBusy` (with `retryAfterSeconds`) at once, without waiting, when the job could not finish
 *   within the deadline at the pace jobs have been running, or when `maxQueue` jobs already wait;
 * - `EngineTimeout` when the deadline passes (waiting included).
 * Whose job it is comes from `EngineTenant` (the account, provided by the use case): accounts take
 * turns (see `dispatch`), and while other accounts wait one holds at most its share of the slots
 * (slots / accounts running or waiting); a slot nobody else wants is never left idle.
 * `load()` says how many jobs run and wait now.
 *
 * Memory is not counted here: the bodies waiting for an engine are bounded by the HTTP admission
 * budget (middleware/engine-admission.ts), before they are read.
 */
export interface EngineCapacityOptions {
  /** Jobs that run at once; default the number of cores (each job keeps a core busy). */
  readonly concurrency?: number;
  /** Jobs that may wait for a slot; one more is refused with EngineBusy. Default: no count, only the deadline. */
  readonly maxQueue?: number;
  /** Time from admission (waiting included) to result; past it the caller gets EngineTimeout. Default 30 s. */
  readonly deadlineMs?: number;
  /**
   * The engine's jobs end when interrupted (e.g. a tesseract.js job, whose worker is stopped on its
   * abort signal): a caller that leaves or times out stops its running job too, and its slot is
   * free again. Otherwise (native work that cannot be stopped midway, as libvips') a started job
   * runs to its end in its slot and only its result is dropped.
   */
  readonly stopsWhenInterrupted?: boolean;
}

export interface EngineCapacity {
  readonly run: <A, E, R>(job: Effect.Effect<A, E, R>) => Effect.Effect<A, E | EngineBusy | EngineTimeout, R>;
  /** Jobs running and waiting now. */
  readonly load: () => { readonly running: number; readonly queued: number };
}

/**
 * The pace is the shortest time of the last jobs: how fast the engine goes unhindered, which is
 * how the line ahead of a job admitted now will mostly run. The jobs that run while a burst's
 * bodies are uploaded and parsed take up to ten times as long (bench:burst: 936 and 1,757 ms against
 * 127 ms before and ~250 ms after); taken as the pace, as a moving average seeded by them did, they
 * refused up to a third of a burst that then finished in half the deadline. A lasting slowdown still
 * moves it within that many jobs, and the deadline (EngineTimeout) bounds any optimism meanwhile.
 */
const PACE_JOBS = 15;

interface Waiter {
  readonly tenant: string;
  /** Hands the slot over; set when the waiter registers. */
  start: () => void;
}

/**
 * A job that has started keeps its slot until it really ends, even after its caller gave up
 * (deadline or disconnect): native work cannot be cancelled midway, and freeing the slot early
 * would let more work onto busy cores. A job still waiting when its caller gives up is dropped
 * without running.
 */
export const makeEngineCapacity = (options: EngineCapacityOptions = {}): EngineCapacity => {
  const concurrency = Math.max(1, options.concurrency ?? availableParallelism());
  const maxQueue = Math.max(0, options.maxQueue ?? Number.POSITIVE_INFINITY);
  const deadlineMs = options.deadlineMs ?? 30_000;
  const waiting: Array<Waiter> = [];
  const runningBy = new Map<string, number>();
  /** When each account running or waiting last had a job started, as a count of starts. */
  const lastStart = new Map<string, number>();
  let starts = 0;
  let running = 0;
  /** Jobs admitted and not started: waiting in line, or about to join it. */
  let pending = 0;
  /** The last jobs' run times; the shortest is the pace that the deadline check and Retry-After rely on. */
  const lastJobsMs: Array<number> = [];
  const paceMs = () => (lastJobsMs.length === 0 ? 0 : Math.min(...lastJobsMs));

  const holds = (tenant: string) => runningBy.get(tenant) ?? 0;
  const adjust = (tenant: string, delta: number) => {
    const next = holds(tenant) + delta;
    if (next === 0) runningBy.delete(tenant);
    else runningBy.set(tenant, next);
  };

  /**
   * Fills free slots, taking turns between accounts: the next job is the oldest of the waiting
   * account that holds the fewest slots, and among those the one whose last job started longest
   * ago (an account that has not started one comes first). So while others wait an account holds at
   * most its share of the slots (slots / accounts running or waiting, at least one), a line of one
   * account's jobs does not hold back another's (on one slot they alternate), and a slot nobody
   * else wants is never left idle.
   */
  const dispatch = () => {
    while (running < concurrency && waiting.length > 0) {
      let best = 0;
      for (let index = 1; index < waiting.length; index++) if (goesBefore(waiting[index]!.tenant, waiting[best]!.tenant)) best = index;
      const [next] = waiting.splice(best, 1);
      running += 1;
      pending -= 1;
      adjust(next!.tenant, 1);
      lastStart.set(next!.tenant, ++starts);
      next!.start();
    }
  };
  const goesBefore = (tenant: string, than: string) =>
    holds(tenant) !== holds(than) ? holds(tenant) < holds(than) : (lastStart.get(tenant) ?? 0) < (lastStart.get(than) ?? 0);

  /** An account with nothing running or waiting is forgotten: its next job starts a new turn. */
  const forgetIfIdle = (tenant: string) => {
    if (holds(tenant) === 0 && !waiting.some((waiter) => waiter.tenant === tenant)) lastStart.delete(tenant);
  };

  const release = (tenant: string, startedAt: number) => {
    running -= 1;
    adjust(tenant, -1);
    forgetIfIdle(tenant);
    const took = performance.now() - startedAt;
    if (lastJobsMs.push(took) > PACE_JOBS) lastJobsMs.shift();
    dispatch();
  };

  /**
   * How long a job admitted now would take to finish, from the line ahead of it and the pace so far;
   * 0 when it would start at once (then it runs whatever its size: jobs differ, the mean is no verdict).
   */
  const expectedFinishMs = () => {
    const ahead = Math.max(0, running + pending + 1 - concurrency);
    return ahead === 0 ? 0 : (Math.ceil(ahead / concurrency) + 1) * paceMs();
  };
  const retryAfterSeconds = () => Math.max(1, Math.ceil((((running + pending) / concurrency) * paceMs()) / 1000));

  const run = <A, E, R>(job: Effect.Effect<A, E, R>): Effect.Effect<A, E | EngineBusy | EngineTimeout, R> =>
    Effect.gen(function* () {
      const tenant = yield* EngineTenant;
      if (running + pending >= concurrency + maxQueue) return yield* new EngineBusy({ retryAfterSeconds: retryAfterSeconds() });
      const finish = expectedFinishMs();
      if (finish > deadlineMs) {
        return yield* new EngineBusy({ retryAfterSeconds: Math.max(1, Math.ceil((finish - deadlineMs) / 1000)) });
      }
      pending += 1;
      let started = false;
      const slot = Effect.callback<void>((resume) => {
        const waiter: Waiter = {
          tenant,
          start: () => {
            started = true;
            resume(Effect.void);
          },
        };
        waiting.push(waiter);
        dispatch();
        return Effect.sync(() => {
          const index = waiting.indexOf(waiter);
          if (index >= 0) waiting.splice(index, 1);
          forgetIfIdle(tenant);
        });
      });
      const work = Effect.flatMap(slot, () => {
        const startedAt = performance.now();
        return Effect.ensuring(
          job,
          Effect.sync(() => release(tenant, startedAt)),
        );
      }).pipe(Effect.onExit(() => Effect.sync(() => (started ? undefined : (pending -= 1)))));
      const fiber = yield* Effect.forkDetach(work);
      return yield* Fiber.join(fiber).pipe(
        Effect.timeoutOrElse({ duration: deadlineMs, orElse: () => Effect.fail(new EngineTimeout({ deadlineMs })) }),
        Effect.onExit((exit) => (Exit.isFailure(exit) && (!started || options.stopsWhenInterrupted === true) ? Fiber.interrupt(fiber) : Effect.void)),
      );
    });

  return { run, load: () => ({ running, queued: pending }) };
};
