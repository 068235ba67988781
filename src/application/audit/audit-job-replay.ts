import { Effect } from "effect";
import type { JobAcceptedData, JobEvent } from "../../domain/job.ts";
import { jobStream } from "../../domain/job.ts";
import { EventStore } from "../../ports/event-store.ts";
import { JobProjection } from "../../ports/projections.ts";
import { decodeEvent } from "../event-sourcing/events/event-codec.ts";
import { jobEventCodec } from "../event-sourcing/events/job-events.ts";
import type { Read } from "./audit-verification.ts";

/** Jobs listed per page of the projection: an account holds at most MAX_QUEUED_JOBS waiting, but any number ended. */
const PAGE = 500;

/** One job's events, with its JobAccepted (which names the key, the operation and the units every later event concerns). */
export interface ReplayedJob {
  readonly accepted: JobAcceptedData;
  readonly events: ReadonlyArray<Read<JobEvent>>;
}

/**
 * An account's jobs, replayed from their streams (job-<jobId>) in the event store. Job streams are
 * one per job, so the jobs projection says which jobs are the account's; what each did is read from
 * the store alone. JobProgressed (progress and lease renewals, one every third of the lease) is
 * left out of the history: JobStarted says who ran the job, and JobSucceeded or JobFailed how it ended.
 */
export const replayAccountJobs = (accountId: string) =>
  Effect.gen(function* () {
    const projection = yield* JobProjection;
    const store = yield* EventStore;
    const jobIds: Array<string> = [];
    for (let before: string | undefined; ;) {
      // The cursor is the projection's own: one it refuses is a defect, not the caller's mistake.
      const { value } = yield* projection.jobsOf(accountId, { limit: PAGE, before }).pipe(Effect.catchTag("InvalidJobCursor", (error) => Effect.die(error)));
      jobIds.push(...value.jobs.map((job) => job.jobId));
      if (value.next === undefined) break;
      before = value.next;
    }
    const jobs = yield* Effect.forEach(jobIds, (jobId) =>
      Effect.gen(function* () {
        const recorded = yield* store.readStream(jobStream(jobId));
        const events = yield* Effect.forEach(recorded, (one) =>
          Effect.map(decodeEvent(jobEventCodec, one), (event): Read<JobEvent> => ({ recorded: one, event })),
        );
        const accepted = events.map(({ event }) => event).find((event) => event.type === "JobAccepted")?.data;
        // A stream of another account's (a projection gone wrong) or without its acceptance has nothing to say of this account.
        return accepted === undefined || accepted.accountId !== accountId
          ? []
          : [{ accepted, events: events.filter(({ event }) => event.type !== "JobProgressed") }];
      }),
    );
    return jobs.flat() satisfies ReadonlyArray<ReplayedJob>;
  });
