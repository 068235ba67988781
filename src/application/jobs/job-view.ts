import { Effect, Option } from "effect";
import { type JobStatus, jobStream } from "../../domain/job.ts";
import type { Feature } from "../../domain/plan.ts";
import { ChainCrypto } from "../../ports/chain-crypto.ts";
import { Clock } from "../../ports/clock.ts";
import { ResultStore } from "../../ports/result-store.ts";
import type { Principal } from "../access/authenticate.ts";
import { NotFound } from "../errors.ts";
import { loadState } from "../event-sourcing/command-handler.ts";
import { jobStreamType } from "../event-sourcing/events/job-events.ts";

/** GET /jobs/{jobId}: a job as its events tell it, with the outcome the synchronous call would have answered. */
export interface JobView {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly operation: Feature;
  readonly createdAt: string;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly attempts: number;
  readonly progress: { readonly done: number; readonly total: number };
  /** When the job and its result are no longer kept. */
  readonly expiresAt: string;
  readonly result?: Readonly<Record<string, unknown>>;
  readonly error?: { readonly code: string; readonly message: string };
}

const notFound = new NotFound({ message: "No such job for this account." });

/** Read from the job's own stream, not a projection: a job just accepted is seen at once, on any instance. */
export const viewJob = (principal: Principal, jobId: string) =>
  Effect.gen(function* () {
    const { state } = yield* loadState(jobStreamType, jobStream(jobId));
    if (state.status === "none" || state.accepted.accountId !== principal.account.accountId) return yield* notFound;
    const { accepted } = state;
    let expiresAt = accepted.expiresAt;
    let result: Readonly<Record<string, unknown>> | undefined;
    if (state.result !== undefined) {
      const found = yield* (yield* ResultStore).get(state.result.resultRef, (yield* Clock).now());
      const json = Option.isSome(found) ? new TextDecoder().decode(found.value.bytes) : undefined;
      if (Option.isSome(found)) expiresAt = found.value.expiresAt.toISOString();
      // Kept as written, or not shown at all: an altered result is never served.
      if (json !== undefined && (yield* ChainCrypto).digest(json) === state.result.resultSha256) result = JSON.parse(json) as Readonly<Record<string, unknown>>;
    }
    return {
      jobId: accepted.jobId,
      status: state.status,
      operation: accepted.operation,
      createdAt: accepted.at,
      ...(state.startedAt === undefined ? {} : { startedAt: state.startedAt }),
      ...(state.finishedAt === undefined ? {} : { finishedAt: state.finishedAt }),
      attempts: state.attempt,
      progress: state.progress,
      expiresAt,
      ...(result === undefined ? {} : { result }),
      ...(state.error === undefined ? {} : { error: state.error }),
    } satisfies JobView;
  });
