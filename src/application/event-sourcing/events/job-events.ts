import { Schema } from "effect";
import { type JobCommand, jobDecider, type JobEvent, type JobState } from "../../../domain/job.ts";
import { FEATURES } from "../../../domain/plan.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";
import { AccountId, At, described, KeyId, RequestId, Sha256Hex } from "./event-fields.ts";

const Operation = described(Schema.Literals(FEATURES), "the operation the job runs");
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const JobId = described(Schema.String, "the job's id (`job_…`)");
const LeaseUntil = described(Schema.String, "ISO 8601 UTC until which the worker holds the job; after it another may take it");

/** The events of a `job-<jobId>` stream, as stored. */
export const JobEventSchema: Schema.Codec<JobEvent, JobEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("JobAccepted"),
    data: Schema.Struct({
      jobId: JobId,
      accountId: AccountId,
      keyId: KeyId,
      operation: Operation,
      requestId: described(RequestId, "the job's reservation in the quota stream"),
      units: described(Count, "units reserved for the job"),
      inputRef: described(Schema.String, "where the call's body is kept, in the result store"),
      inputSha256: Sha256Hex("the kept body"),
      expiresAt: described(Schema.String, "ISO 8601 UTC after which the job's record and result are gone"),
      at: At,
    }),
  }).annotate({ description: "A call with `Prefer: respond-async` is accepted (202), its units reserved.", writtenBy: "AcceptJob" }),
  Schema.Struct({
    type: Schema.Literal("JobStarted"),
    data: Schema.Struct({
      jobId: JobId,
      accountId: AccountId,
      attempt: described(Count, "1 for the first run, one more each time a lapsed lease is taken over"),
      worker: described(Schema.String, "the instance that runs it"),
      leaseUntil: LeaseUntil,
      at: At,
    }),
  }).annotate({ description: "A worker takes the job.", writtenBy: "StartJob" }),
  Schema.Struct({
    type: Schema.Literal("JobProgressed"),
    data: Schema.Struct({
      jobId: JobId,
      accountId: AccountId,
      done: described(Count, "pages done"),
      total: described(Count, "pages in all"),
      leaseUntil: described(LeaseUntil, "the lease, extended"),
      at: At,
    }),
  }).annotate({ description: "A document job's pages done so far.", writtenBy: "RecordJobProgress" }),
  Schema.Struct({
    type: Schema.Literal("JobSucceeded"),
    data: Schema.Struct({
      jobId: JobId,
      accountId: AccountId,
      operation: Operation,
      resultRef: described(Schema.String, "where the answer is kept, in the result store"),
      resultSha256: Sha256Hex("the kept answer"),
      at: At,
    }),
  }).annotate({ description: "The job's work succeeded (its units are committed in the quota stream).", writtenBy: "SucceedJob" }),
  Schema.Struct({
    type: Schema.Literal("JobFailed"),
    data: Schema.Struct({
      jobId: JobId,
      accountId: AccountId,
      operation: Operation,
      code: described(Schema.String, "the error code, as a synchronous call would have answered it"),
      message: described(Schema.String, "the error message"),
      at: At,
    }),
  }).annotate({ description: "The job's work failed (its units are released in the quota stream).", writtenBy: "FailJob" }),
]);

export const jobEventCodec = makeEventCodec(JobEventSchema);

export const jobStreamType: StreamType<JobCommand, JobEvent, JobState> = { decider: jobDecider, codec: jobEventCodec };
