import { Effect, Option } from "effect";
import { billingPeriodOf } from "../../domain/billing-period.ts";
import { type JobAcceptedData, jobStream } from "../../domain/job.ts";
import { quotaStream } from "../../domain/quota-ledger.ts";
import { ChainCrypto } from "../../ports/chain-crypto.ts";
import { Clock } from "../../ports/clock.ts";
import { ResultStore } from "../../ports/result-store.ts";
import { KeyDirectory } from "../access/key-directory.ts";
import { Unauthorized } from "../errors.ts";
import { handleCommand, loadState } from "../event-sourcing/command-handler.ts";
import { jobStreamType } from "../event-sourcing/events/job-events.ts";
import { quotaLedgerStreamType } from "../event-sourcing/events/quota-events.ts";
import { ServiceSettings } from "../settings.ts";
import { completeTransformation, type Processed, type Reservation } from "../transformations/run-transformation.ts";
import { WorkProgress } from "../transformations/work-progress.ts";
import { type JobInputs, JobPresenter, planJob } from "./job-operations.ts";

/** A job's input or result could not be read back as written (expired, lost or altered). */
class JobInputGone extends Error {
  readonly code = "JOB_INPUT_GONE";
}

const readInput = (job: JobAcceptedData) =>
  Effect.gen(function* () {
    const found = yield* (yield* ResultStore).get(job.inputRef, (yield* Clock).now());
    const json = Option.isSome(found) ? new TextDecoder().decode(found.value.bytes) : undefined;
    // The digest in the job's event proves these are the bytes this service wrote: the body its Schema decoded then.
    if (json === undefined || (yield* ChainCrypto).digest(json) !== job.inputSha256)
      return yield* Effect.fail(new JobInputGone("the job's input is no longer kept"));
    return JSON.parse(json) as JobInputs[typeof job.operation];
  });

/** The key that made the job, as it is now: a job whose key was deleted before it ran is refused, and nothing is charged. */
const principalOf = (job: JobAcceptedData) =>
  Effect.gen(function* () {
    const owner = yield* (yield* KeyDirectory).findKey(job.keyId);
    if (Option.isSome(owner) && owner.value.account.accountId === job.accountId) return owner.value;
    return yield* new Unauthorized({ message: "The API key that made this job was deleted before it ran." });
  });

/** Whether an earlier run of this job already committed or released its units (it died after that, before recording the outcome). */
const settledEarlier = (job: JobAcceptedData) =>
  Effect.map(
    loadState(quotaLedgerStreamType, quotaStream(job.accountId, billingPeriodOf(new Date(job.at)).id)),
    ({ state }) => !state.reservations.has(job.requestId),
  );

/**
 * Runs one job if this worker can claim it: the claim is an event appended at the stream's
 * revision, so of two instances only one wins, and a claim holds for the lease, renewed while the
 * work runs. The work is the synchronous call's own (planned again from the kept body, under the
 * reservation made at acceptance), and its outcome is kept as the synchronous call would answer.
 * Returns whether this worker ran it.
 */
export const runJob = (jobId: string, worker: string) =>
  Effect.gen(function* () {
    const settings = yield* ServiceSettings;
    const clock = yield* Clock;
    const stream = jobStream(jobId);
    const leaseUntil = () => new Date(clock.now().getTime() + settings.jobLeaseMs);
    const renewEveryMs = Math.max(1, Math.floor(settings.jobLeaseMs / 3));
    const claimed = yield* Effect.result(
      handleCommand(jobStreamType, stream, { type: "StartJob", worker, leaseUntil: leaseUntil(), now: clock.now() }, systemContext),
    );
    if (claimed._tag === "Failure") {
      if (claimed.failure._tag === "CommandRejected") return false;
      return yield* Effect.fail(claimed.failure);
    }
    const { state } = claimed.success;
    if (state.status === "none") return false;
    const job = state.accepted;
    const context = { actor: { kind: "api-key", keyId: job.keyId, accountId: job.accountId } as const, requestId: job.requestId };
    const presenter = yield* JobPresenter;

    const work = Effect.gen(function* () {
      const settled = yield* settledEarlier(job);
      const owner = yield* Effect.result(principalOf(job));
      // Whatever stops the work before it starts (the key gone, the body gone, a template deleted) releases the units like a failed request.
      const process = Effect.gen(function* () {
        const principal = owner._tag === "Success" ? owner.success : yield* Effect.fail(owner.failure);
        const plan = yield* planJob(job.operation, principal, yield* readInput(job));
        const done: Processed<unknown> = yield* plan.process;
        return done;
      });
      const plan = owner._tag === "Success" ? owner.success.account.plan : "free";
      const reservation: Reservation = { requestId: job.requestId, accountId: job.accountId, keyId: job.keyId, plan, reservedAt: new Date(job.at) };
      const transformed = yield* completeTransformation(reservation, process, {
        settled,
        timedFromStart: true,
        keepWhenInterrupted: true,
      });
      return yield* presenter.present(job.operation, transformed);
    });
    // Progress and the lease travel together: each unit done (a page) is recorded, and the lease renewed with it.
    let done = 0;
    const record = Effect.suspend(() =>
      handleCommand(jobStreamType, stream, { type: "RecordJobProgress", worker, done, total: job.units, leaseUntil: leaseUntil(), now: clock.now() }, context),
    );
    const progress = { unitDone: Effect.suspend(() => ((done += 1), Effect.ignore(record))) };
    // A renewal refused means another instance took the job over (this one stalled past its lease): the work stops here, unrecorded.
    const leaseLost = record.pipe(Effect.delay(`${renewEveryMs} millis`), Effect.forever, Effect.flip);
    const outcome = yield* Effect.result(
      Effect.raceFirst(
        Effect.map(work, (data) => ({ data })),
        Effect.map(leaseLost, (lost) => ({ lost })),
      ).pipe(Effect.provideService(WorkProgress, progress)),
    );
    const now = clock.now();
    if (outcome._tag === "Success") {
      if ("lost" in outcome.success)
        return yield* Effect.as(Effect.logWarning(`job ${jobId}: its lease passed to another worker`, outcome.success.lost), false);
      const json = JSON.stringify(outcome.success.data);
      const resultRef = `${jobId}-result`;
      const expiresAt = new Date(now.getTime() + settings.resultTtlMs);
      yield* (yield* ResultStore).put({ resultId: resultRef, bytes: new TextEncoder().encode(json), contentType: "application/json", expiresAt });
      const resultSha256 = (yield* ChainCrypto).digest(json);
      yield* handleCommand(jobStreamType, stream, { type: "SucceedJob", worker, resultRef, resultSha256, now }, context);
    } else {
      const { code, message } = outcome.failure instanceof JobInputGone ? outcome.failure : presenter.failure(outcome.failure);
      yield* handleCommand(jobStreamType, stream, { type: "FailJob", worker, code, message, now }, context);
    }
    return true;
  });

const systemContext = { actor: { kind: "service", task: "job-runner" } } as const;
