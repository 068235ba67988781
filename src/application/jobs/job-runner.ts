import { Effect, Schedule, Semaphore } from "effect";
import { Clock } from "../../ports/clock.ts";
import { JobProjection } from "../../ports/projections.ts";
import { JobWakeups } from "./job-wakeups.ts";
import { runJob } from "./run-job.ts";

export interface JobRunnerOptions {
  /** This instance's name in claims (unique per process: a restarted process is another worker). */
  readonly worker: string;
  /** Jobs this instance runs at once; each still waits for its engine like any request. */
  readonly concurrency: number;
  /** How often the jobs projection is asked for jobs accepted elsewhere or left by an instance that died. */
  readonly pollMs: number;
}

/**
 * Every instance runs jobs: those accepted here at once (JobWakeups), and every other runnable
 * one the jobs projection lists (queued elsewhere, or running under a lease that has passed).
 * Which instance runs a job is settled by its claim in the store (run-job.ts); a job this
 * instance is already running is not tried twice.
 */
export const runJobs = (options: JobRunnerOptions) =>
  Effect.gen(function* () {
    const running = new Set<string>();
    const semaphore = yield* Semaphore.make(options.concurrency);
    const start = (jobId: string) =>
      running.has(jobId)
        ? Effect.void
        : Effect.sync(() => running.add(jobId)).pipe(
            Effect.andThen(
              semaphore
                .withPermits(1)(runJob(jobId, options.worker))
                .pipe(
                  Effect.catchCause((cause) => Effect.logWarning(`job ${jobId}: not run this time; tried again later`, cause)),
                  Effect.ensuring(Effect.sync(() => running.delete(jobId))),
                  Effect.forkChild,
                ),
            ),
          );
    const wakeups = yield* JobWakeups;
    const woken = wakeups.next.pipe(Effect.flatMap(Effect.forEach(start, { discard: true })), Effect.forever);
    const polled = Effect.gen(function* () {
      const found = yield* (yield* JobProjection).runnable((yield* Clock).now(), options.concurrency * 4);
      yield* Effect.forEach(found, ({ jobId }) => start(jobId), { discard: true });
    }).pipe(
      Effect.catchCause((cause) => Effect.logWarning("jobs: the projection could not be read; looking again", cause)),
      Effect.repeat(Schedule.spaced(`${options.pollMs} millis`)),
    );
    yield* Effect.all([woken, polled], { concurrency: 2, discard: true });
  });
