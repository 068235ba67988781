import type { DatabaseSync } from "node:sqlite";
import { Effect, Layer } from "effect";
import { jobEventCodec } from "../../application/event-sourcing/events/job-events.ts";
import { webhookDeliveryEventCodec } from "../../application/event-sourcing/events/webhook-events.ts";
import type { DeliveryStatus } from "../../domain/webhook-delivery.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import { type IndexedDelivery, type JobEnd, WebhookIndex, type WebhookIndexShape } from "../../ports/webhook-index.ts";
import { makeSqliteProjection, type SqliteProjectionContext, type SqliteProjectionDefinition, unavailable } from "./sqlite-projection.ts";
import { openProjectionDatabase, type SqliteProjectionsOptions } from "./sqlite-projections.ts";

const jobEndsSchema = `
  CREATE TABLE IF NOT EXISTS webhook_job_ends (
    event_id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    account_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    job_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    at TEXT NOT NULL,
    error_code TEXT,
    error_message TEXT
  ) STRICT;
`;

const deliveriesSchema = `
  CREATE TABLE IF NOT EXISTS webhook_deliveries (
    delivery_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_status_code INTEGER,
    last_error TEXT,
    next_attempt_at TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
  CREATE INDEX IF NOT EXISTS webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at);
  CREATE TABLE IF NOT EXISTS webhook_endpoint_health (
    endpoint_id TEXT PRIMARY KEY,
    last_success_at TEXT,
    failing_since TEXT
  ) STRICT;
`;

const jobEndsWriter = (db: DatabaseSync) => {
  const insert = db.prepare(
    `INSERT INTO webhook_job_ends (event_id, position, account_id, event_type, job_id, operation, at, error_code, error_message)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`,
  );
  return (recorded: RecordedEvent): void => {
    // Only a job's end concerns webhooks: the other events of its stream are not decoded here.
    if (recorded.type !== "JobSucceeded" && recorded.type !== "JobFailed") return;
    const event = jobEventCodec.decode(recorded);
    if (event.type === "JobSucceeded") {
      const { accountId, jobId, operation, at } = event.data;
      insert.run(recorded.eventId, recorded.globalPosition, accountId, "job.succeeded", jobId, operation, at, null, null);
    } else if (event.type === "JobFailed") {
      const { accountId, jobId, operation, at, code, message } = event.data;
      insert.run(recorded.eventId, recorded.globalPosition, accountId, "job.failed", jobId, operation, at, code, message);
    }
  };
};

const deliveriesWriter = (db: DatabaseSync) => {
  const created = db.prepare(
    `INSERT INTO webhook_deliveries (delivery_id, account_id, endpoint_id, event_type, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (delivery_id) DO NOTHING`,
  );
  const started = db.prepare("UPDATE webhook_deliveries SET status = 'sending', attempts = ?, lease_until = ? WHERE delivery_id = ?");
  const finished = db.prepare(
    "UPDATE webhook_deliveries SET status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?, lease_until = NULL WHERE delivery_id = ?",
  );
  const resent = db.prepare("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, lease_until = NULL WHERE delivery_id = ?");
  const abandoned = db.prepare(
    "UPDATE webhook_deliveries SET status = 'abandoned', last_error = ?, next_attempt_at = NULL, lease_until = NULL WHERE delivery_id = ?",
  );
  const succeeded = db.prepare(
    `INSERT INTO webhook_endpoint_health (endpoint_id, last_success_at, failing_since) VALUES (?, ?, NULL)
     ON CONFLICT (endpoint_id) DO UPDATE SET last_success_at = excluded.last_success_at, failing_since = NULL`,
  );
  const failed = db.prepare(
    `INSERT INTO webhook_endpoint_health (endpoint_id, last_success_at, failing_since) VALUES (?, NULL, ?)
     ON CONFLICT (endpoint_id) DO UPDATE SET failing_since = coalesce(failing_since, excluded.failing_since)`,
  );
  return (recorded: RecordedEvent): void => {
    const event = webhookDeliveryEventCodec.decode(recorded);
    switch (event.type) {
      case "DeliveryCreated": {
        const { deliveryId, accountId, endpointId, eventType, nextAttemptAt, at } = event.data;
        created.run(deliveryId, accountId, endpointId, eventType, nextAttemptAt, at);
        return;
      }
      case "DeliveryAttemptStarted":
        started.run(event.data.attempt, event.data.leaseUntil, event.data.deliveryId);
        return;
      case "DeliveryAttemptFinished": {
        const { deliveryId, endpointId, ok, statusCode, error, nextAttemptAt, at } = event.data;
        const status: DeliveryStatus = ok ? "succeeded" : nextAttemptAt === null ? "failed" : "pending";
        finished.run(status, statusCode, error, nextAttemptAt, deliveryId);
        if (ok) succeeded.run(endpointId, at);
        else failed.run(endpointId, at);
        return;
      }
      case "DeliveryResent":
        resent.run(event.data.at, event.data.deliveryId);
        return;
      case "DeliveryAbandoned":
        abandoned.run(event.data.reason, event.data.deliveryId);
        return;
    }
  };
};

const jobEndsDefinition: SqliteProjectionDefinition = {
  name: "webhook-job-ends",
  category: "job",
  schema: jobEndsSchema,
  tables: ["webhook_job_ends"],
  writer: jobEndsWriter,
};

const deliveriesDefinition: SqliteProjectionDefinition = {
  name: "webhook-deliveries",
  category: "webhook",
  schema: deliveriesSchema,
  tables: ["webhook_deliveries", "webhook_endpoint_health"],
  writer: deliveriesWriter,
};

interface DeliveryRow {
  readonly delivery_id: string;
  readonly account_id: string;
  readonly endpoint_id: string;
  readonly event_type: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly next_attempt_at: string | null;
  readonly created_at: string;
}

const deliveryOf = (row: DeliveryRow): IndexedDelivery => ({
  deliveryId: row.delivery_id,
  accountId: row.account_id,
  endpointId: row.endpoint_id,
  eventType: row.event_type,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
});

interface JobEndRow {
  readonly event_id: string;
  readonly account_id: string;
  readonly event_type: "job.succeeded" | "job.failed";
  readonly job_id: string;
  readonly operation: string;
  readonly at: string;
  readonly error_code: string | null;
  readonly error_message: string | null;
}

export const makeSqliteWebhookIndex = (context: SqliteProjectionContext): WebhookIndexShape => {
  const { db } = context;
  const pending = db.prepare("SELECT * FROM webhook_job_ends ORDER BY position LIMIT ?");
  const handled = db.prepare("DELETE FROM webhook_job_ends WHERE event_id = ?");
  const due = db.prepare(
    `SELECT * FROM webhook_deliveries WHERE (status = 'pending' AND next_attempt_at <= ?) OR (status = 'sending' AND lease_until <= ?)
     ORDER BY next_attempt_at LIMIT ?`,
  );
  const recent = db.prepare("SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, delivery_id LIMIT ?");
  const health = db.prepare("SELECT failing_since FROM webhook_endpoint_health WHERE endpoint_id = ?");
  const read = <A>(body: () => A) => Effect.try({ try: body, catch: unavailable });
  return {
    jobEnds: makeSqliteProjection(context, jobEndsDefinition),
    deliveries: makeSqliteProjection(context, deliveriesDefinition),
    pendingJobEnds: (limit) =>
      read(() =>
        (pending.all(limit) as unknown as ReadonlyArray<JobEndRow>).map((row): JobEnd => ({
          eventId: row.event_id,
          accountId: row.account_id,
          eventType: row.event_type,
          jobId: row.job_id,
          operation: row.operation,
          at: row.at,
          error: row.error_code === null ? undefined : { code: row.error_code, message: row.error_message ?? "" },
        })),
      ),
    jobEndHandled: (eventId) => read(() => void handled.run(eventId)),
    dueDeliveries: (now, limit) => read(() => (due.all(now, now, limit) as unknown as ReadonlyArray<DeliveryRow>).map(deliveryOf)),
    recentDeliveries: (endpointId, limit) => read(() => (recent.all(endpointId, limit) as unknown as ReadonlyArray<DeliveryRow>).map(deliveryOf)),
    failingSince: (endpointId) => read(() => (health.get(endpointId) as { failing_since: string | null } | undefined)?.failing_since ?? undefined),
  };
};

/** The webhook index in the projections database (DATA_DIR/projections.sqlite), beside the other projections. */
export const sqliteWebhookIndexLayer = (options: SqliteProjectionsOptions) =>
  Layer.effect(WebhookIndex)(Effect.map(openProjectionDatabase(options, jobEndsDefinition.schema + deliveriesDefinition.schema), makeSqliteWebhookIndex));
