import { Context, Effect, Layer, Queue } from "effect";

/**
 * The in-process nudge from a job accepted here to this instance's runner, so a job starts at
 * once rather than at the next look at the jobs projection (which finds every other job, those
 * accepted elsewhere or left by an instance that died, within its poll).
 */
export interface JobWakeupsShape {
  readonly wake: (jobId: string) => Effect.Effect<void>;
  /** Waits for at least one job id, then takes all that are waiting. */
  readonly next: Effect.Effect<ReadonlyArray<string>>;
}

export class JobWakeups extends Context.Service<JobWakeups, JobWakeupsShape>()("JobWakeups") {}

export const jobWakeupsLayer = Layer.effect(JobWakeups)(
  Effect.map(Queue.unbounded<string>(), (queue) => ({
    wake: (jobId: string) => Effect.asVoid(Queue.offer(queue, jobId)),
    next: Effect.map(Queue.takeBetween(queue, 1, Number.MAX_SAFE_INTEGER), (taken) => [...taken]),
  })),
);
