import { Schema } from "effect";
import { type JobCommand, jobDecider, type JobEvent, type JobState } from "../../../domain/job.ts";
import { FEATURES } from "../../../domain/plan.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";

const Operation = Schema.Literals(FEATURES);
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));

/** The events of a `job-<jobId>` stream, as stored. */
export const JobEventSchema: Schema.Codec<JobEvent, JobEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("JobAccepted"),
    data: Schema.Struct({
      jobId: Schema.String,
      accountId: Schema.String,
      keyId: Schema.String,
      operation: Operation,
      requestId: Schema.String,
      units: Count,
      inputRef: Schema.String,
      inputSha256: Schema.String,
      expiresAt: Schema.String,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("JobStarted"),
    data: Schema.Struct({
      jobId: Schema.String,
      accountId: Schema.String,
      attempt: Count,
      worker: Schema.String,
      leaseUntil: Schema.String,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("JobProgressed"),
    data: Schema.Struct({ jobId: Schema.String, accountId: Schema.String, done: Count, total: Count, leaseUntil: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("JobSucceeded"),
    data: Schema.Struct({
      jobId: Schema.String,
      accountId: Schema.String,
      operation: Operation,
      resultRef: Schema.String,
      resultSha256: Schema.String,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("JobFailed"),
    data: Schema.Struct({
      jobId: Schema.String,
      accountId: Schema.String,
      operation: Operation,
      code: Schema.String,
      message: Schema.String,
      at: Schema.String,
    }),
  }),
]);

export const jobEventCodec = makeEventCodec(JobEventSchema);

export const jobStreamType: StreamType<JobCommand, JobEvent, JobState> = { decider: jobDecider, codec: jobEventCodec };
