import { Schema } from "effect";
import { type Feature, FEATURES } from "../../domain/plan.ts";
import type { WebhookEventType } from "../../domain/webhook-endpoints.ts";
import type { JobEnd } from "../../ports/webhook-index.ts";

/**
 * The messages webhooks send, as Standard Webhooks shapes them (type, timestamp, data): the sender
 * encodes every body with these Schemas and the OpenAPI document's top-level `webhooks` declares
 * them from the same Schemas (openapi-document.ts), so the two cannot drift apart.
 */
const DateTime = Schema.String.annotate({ format: "date-time" });
const Operation = Schema.Literals(FEATURES).annotate({ description: "the route that was called: generate, ocr or virtual-tryon" });

const JobId = Schema.String.annotate({ description: "the job, as GET /api/jobs/{jobId} reads it" });

export const JobSucceededMessage = Schema.Struct({
  type: Schema.Literal("job.succeeded"),
  timestamp: DateTime.annotate({ description: "when the job ended" }),
  data: Schema.Struct({ jobId: JobId, operation: Operation, status: Schema.Literal("succeeded"), finishedAt: DateTime }),
}).annotate({ identifier: "JobSucceededWebhook", description: "A job succeeded: GET /api/jobs/{jobId} gives its result." });

export const JobFailedMessage = Schema.Struct({
  type: Schema.Literal("job.failed"),
  timestamp: DateTime.annotate({ description: "when the job ended" }),
  data: Schema.Struct({
    jobId: JobId,
    operation: Operation,
    status: Schema.Literal("failed"),
    finishedAt: DateTime,
    error: Schema.Struct({
      code: Schema.String.annotate({ description: "the error code the synchronous call would have answered" }),
      message: Schema.String,
    }),
  }),
}).annotate({
  identifier: "JobFailedWebhook",
  description: "A job failed, nothing charged: data.error is the error the synchronous call would have answered.",
});

/** Every event type the sender emits, with the Schema of its message and its component's name. */
export const WEBHOOK_MESSAGES = {
  "job.succeeded": { identifier: "JobSucceededWebhook", schema: JobSucceededMessage },
  "job.failed": { identifier: "JobFailedWebhook", schema: JobFailedMessage },
} as const satisfies Record<WebhookEventType, { identifier: string; schema: Schema.Top }>;

const encodeSucceeded = Schema.encodeSync(JobSucceededMessage);
const encodeFailed = Schema.encodeSync(JobFailedMessage);

/** The body of a job's end, as sent. */
export const jobEndPayload = (end: JobEnd): string => {
  const job = { jobId: end.jobId, operation: end.operation as Feature };
  return JSON.stringify(
    end.eventType === "job.succeeded"
      ? encodeSucceeded({ type: "job.succeeded", timestamp: end.at, data: { ...job, status: "succeeded", finishedAt: end.at } })
      : encodeFailed({
          type: "job.failed",
          timestamp: end.at,
          // A JobFailed event always names its error; the fallback only keeps the message well-formed.
          data: { ...job, status: "failed", finishedAt: end.at, error: end.error ?? { code: "INTERNAL_ERROR", message: "the job failed" } },
        }),
  );
};

const header = (identifier: string, pattern: RegExp, description: string) => ({
  identifier,
  description,
  schema: Schema.String.check(Schema.isPattern(pattern)).annotate({ identifier, description }),
});

/** The Standard Webhooks headers every message carries, as the sender writes them (webhook-sender.ts). */
export const WEBHOOK_HEADERS = {
  "webhook-id": header("WebhookIdHeader", /^msg_[0-9a-f]{32}$/u, "The message's id, the same on every attempt and resend of it: drop repeats by it"),
  "webhook-timestamp": header(
    "WebhookTimestampHeader",
    /^\d{1,12}$/u,
    "The attempt's time in seconds since the epoch; refuse one too far from your clock (the libraries allow 5 minutes)",
  ),
  "webhook-signature": header(
    "WebhookSignatureHeader",
    /^v1,[A-Za-z0-9+/]+={0,2}(?: v1,[A-Za-z0-9+/]+={0,2})*$/u,
    "v1, then the base64 HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${body}` under the secret's key; two, space-separated, during a rotation's overlap",
  ),
} as const;
