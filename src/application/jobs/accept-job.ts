import { Effect } from "effect";
import { jobStream } from "../../domain/job.ts";
import type { Feature } from "../../domain/plan.ts";
import { ChainCrypto } from "../../ports/chain-crypto.ts";
import { Clock } from "../../ports/clock.ts";
import { Ids } from "../../ports/ids.ts";
import { JobProjection } from "../../ports/projections.ts";
import { ResultStore } from "../../ports/result-store.ts";
import type { Principal } from "../access/authenticate.ts";
import { JobQueueFull } from "../errors.ts";
import { handleCommand } from "../event-sourcing/command-handler.ts";
import { jobStreamType } from "../event-sourcing/events/job-events.ts";
import { ServiceSettings } from "../settings.ts";
import { completeTransformation, reserveTransformation } from "../transformations/run-transformation.ts";
import { type JobInputs, planJob } from "./job-operations.ts";
import { JobWakeups } from "./job-wakeups.ts";

/** What a 202 answers with: the job as it starts. */
export interface AcceptedJob {
  readonly jobId: string;
  readonly status: "queued";
  readonly operation: Feature;
  readonly createdAt: string;
}

/**
 * An asynchronous request (`Prefer: respond-async`): everything the synchronous call checks before
 * its work (the body, the plan, the quota: its units reserved now, held for as long as results
 * are kept), then the body kept in the result store, the job recorded, and a runner woken. The
 * work itself runs later, on whichever instance claims the job (run-job.ts).
 */
export const acceptJob = <O extends Feature>(principal: Principal, operation: O, input: JobInputs[O]) =>
  Effect.gen(function* () {
    const plan = yield* planJob(operation, principal, input);
    const settings = yield* ServiceSettings;
    const { accountId } = principal.account;
    // A race of two requests may pass the cap by one each: it bounds the queue, it does not bill.
    if ((yield* (yield* JobProjection).queuedCount(accountId)) >= settings.maxQueuedJobs) return yield* new JobQueueFull({ limit: settings.maxQueuedJobs });
    // From the reservation on, a client that leaves stops nothing: the units are held by a job, or given back.
    return yield* Effect.uninterruptible(
      Effect.gen(function* () {
        const reservation = yield* reserveTransformation(plan.entitled, plan.parameters, plan.units, settings.resultTtlMs);
        const ids = yield* Ids;
        const now = (yield* Clock).now();
        const expiresAt = new Date(now.getTime() + settings.resultTtlMs);
        const json = JSON.stringify(input);
        const inputRef = ids.uuid();
        const jobId = ids.uuid();
        const keep = Effect.gen(function* () {
          yield* (yield* ResultStore).put({ resultId: inputRef, bytes: new TextEncoder().encode(json), contentType: "application/json", expiresAt });
          const accept = {
            type: "AcceptJob",
            jobId,
            accountId,
            keyId: principal.key.keyId,
            operation,
            requestId: reservation.requestId,
            units: plan.units,
            inputRef,
            inputSha256: (yield* ChainCrypto).digest(json),
            expiresAt: expiresAt.toISOString(),
            now,
          } as const;
          yield* handleCommand(jobStreamType, jobStream(jobId), accept, {
            actor: { kind: "api-key", keyId: principal.key.keyId, accountId },
            requestId: reservation.requestId,
          });
        });
        // The body could not be kept or the job not recorded: the units go back, as for any failed request.
        const kept = yield* Effect.result(keep);
        if (kept._tag === "Failure") yield* completeTransformation(reservation, Effect.fail(kept.failure));
        yield* (yield* JobWakeups).wake(jobId);
        return { jobId, status: "queued", operation, createdAt: now.toISOString() } satisfies AcceptedJob;
      }),
    );
  });
