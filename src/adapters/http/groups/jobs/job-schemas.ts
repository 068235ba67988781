import { Schema } from "effect";
import { FEATURES } from "../../../../domain/plan.ts";

const DateTime = Schema.String.annotate({ format: "date-time" });
const Status = Schema.Literals(["queued", "running", "succeeded", "failed"]).annotate({ identifier: "JobStatus" });
const Operation = Schema.Literals(FEATURES).annotate({ identifier: "JobOperation", description: "the route that was called: generate, ocr or virtual-tryon" });

export const JobId = Schema.String.annotate({ identifier: "JobId", description: "as the 202 and its Location gave it" });

/** What a 202 (Prefer: respond-async) answers: the job as it starts. */
export const AcceptedJobData = Schema.Struct({
  jobId: JobId,
  status: Schema.Literal("queued"),
  operation: Operation,
  createdAt: DateTime,
});

const Progress = Schema.Struct({
  done: Schema.Int.annotate({ description: "units finished (a document's pages)" }),
  total: Schema.Int.annotate({ description: "units reserved: 1, a document's pages, or an account template's layouts" }),
}).annotate({ identifier: "JobProgress" });

export const JobData = Schema.Struct({
  jobId: JobId,
  status: Status,
  operation: Operation,
  createdAt: DateTime,
  startedAt: Schema.optionalKey(DateTime),
  finishedAt: Schema.optionalKey(DateTime),
  attempts: Schema.Int.annotate({ description: "runs started; more than 1 when an instance running it stopped and another took it over" }),
  progress: Progress,
  expiresAt: DateTime.annotate({ description: "when the job and its result are no longer kept (RESULT_TTL_SECONDS after it ended)" }),
  result: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.Unknown).annotate({
      identifier: "JobResult",
      description:
        "succeeded: exactly the data the synchronous call answers (GenerateImageReply, RecognizeTextReply or VirtualTryOnReply's data), receipt included",
    }),
  ),
  error: Schema.optionalKey(
    Schema.Struct({ code: Schema.String, message: Schema.String }).annotate({
      identifier: "JobError",
      description: "failed: the error body's code and message the synchronous call would have answered; nothing was charged",
    }),
  ),
});

export const JobListLimit = Schema.String.annotate({ identifier: "JobListLimit", description: "1 to 100 jobs a page; default 20" });
export const JobListCursor = Schema.String.annotate({ identifier: "JobListCursor", description: "the `next` of the previous page" });

export const JobListData = Schema.Struct({
  jobs: Schema.Array(
    Schema.Struct({
      jobId: JobId,
      status: Status,
      operation: Operation,
      createdAt: DateTime,
      startedAt: Schema.NullOr(DateTime),
      finishedAt: Schema.NullOr(DateTime),
      attempts: Schema.Int,
      progress: Progress,
      errorCode: Schema.NullOr(Schema.String),
    }).annotate({ identifier: "JobSummary" }),
  ),
  next: Schema.optionalKey(JobListCursor),
});
