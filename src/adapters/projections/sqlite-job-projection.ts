import type { DatabaseSync } from "node:sqlite";
import { Effect } from "effect";
import { jobEventCodec } from "../../application/event-sourcing/events/job-events.ts";
import type { JobStatus } from "../../domain/job.ts";
import type { Feature } from "../../domain/plan.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import { InvalidJobCursor, type JobProjectionShape, type ProjectedJob, type RunnableJob } from "../../ports/projections.ts";
import { inReadTransaction, makeSqliteProjection, type SqliteProjectionContext, type SqliteProjectionDefinition, unavailable } from "./sqlite-projection.ts";

/**
 * Asynchronous jobs, one row each (from the `job-<jobId>` streams). Two indexes serve the two
 * readers: an account's jobs newest first, and the open (queued or running) jobs oldest first,
 * which the runner scans for those it may claim and the per-account cap counts. The lease is kept
 * in epoch milliseconds too, so that its comparison with now does not rest on one ISO format.
 */
const schema = `
  CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    attempt INTEGER NOT NULL DEFAULT 0,
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL,
    lease_until TEXT,
    lease_until_ms INTEGER,
    error_code TEXT
  ) STRICT;
  CREATE INDEX IF NOT EXISTS jobs_by_account ON jobs (account_id, created_at, job_id);
  CREATE INDEX IF NOT EXISTS jobs_open ON jobs (created_at, job_id) WHERE status IN ('queued', 'running');
  CREATE INDEX IF NOT EXISTS jobs_open_by_account ON jobs (account_id) WHERE status IN ('queued', 'running');
`;

const OPEN = "status IN ('queued', 'running')";

/** Epoch milliseconds of an ISO time; null when it is none (such a lease counts as passed, as in the decider's leaseExpired). */
const millis = (iso: string): number | null => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

const writer = (db: DatabaseSync) => {
  const accepted = db.prepare(
    `INSERT INTO jobs (job_id, account_id, operation, status, created_at, total) VALUES (?, ?, ?, 'queued', ?, ?)
     ON CONFLICT (job_id) DO NOTHING`,
  );
  const started = db.prepare(
    `UPDATE jobs SET status = 'running', attempt = ?, started_at = ?, lease_until = ?, lease_until_ms = ? WHERE job_id = ? AND ${OPEN}`,
  );
  const progressed = db.prepare(`UPDATE jobs SET done = ?, total = ?, lease_until = ?, lease_until_ms = ? WHERE job_id = ? AND ${OPEN}`);
  const succeeded = db.prepare(
    `UPDATE jobs SET status = 'succeeded', finished_at = ?, done = total, lease_until = NULL, lease_until_ms = NULL WHERE job_id = ? AND ${OPEN}`,
  );
  const failed = db.prepare(
    `UPDATE jobs SET status = 'failed', finished_at = ?, error_code = ?, lease_until = NULL, lease_until_ms = NULL WHERE job_id = ? AND ${OPEN}`,
  );
  return (recorded: RecordedEvent): void => {
    const event = jobEventCodec.decode(recorded);
    switch (event.type) {
      case "JobAccepted": {
        const { jobId, accountId, operation, units, at } = event.data;
        accepted.run(jobId, accountId, operation, at, units);
        return;
      }
      case "JobStarted": {
        const { jobId, attempt, leaseUntil, at } = event.data;
        started.run(attempt, at, leaseUntil, millis(leaseUntil), jobId);
        return;
      }
      case "JobProgressed": {
        const { jobId, done, total, leaseUntil } = event.data;
        progressed.run(done, total, leaseUntil, millis(leaseUntil), jobId);
        return;
      }
      case "JobSucceeded":
        succeeded.run(event.data.at, event.data.jobId);
        return;
      case "JobFailed":
        failed.run(event.data.at, event.data.code, event.data.jobId);
        return;
    }
  };
};

export const jobProjectionDefinition: SqliteProjectionDefinition = {
  name: "jobs",
  category: "job",
  schema,
  tables: ["jobs"],
  writer,
};

interface JobRecord {
  readonly job_id: string;
  readonly account_id: string;
  readonly operation: string;
  readonly status: string;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly attempt: number;
  readonly done: number;
  readonly total: number;
  readonly lease_until: string | null;
  readonly error_code: string | null;
}

const toJob = (row: JobRecord): ProjectedJob => ({
  jobId: row.job_id,
  accountId: row.account_id,
  operation: row.operation as Feature,
  status: row.status as JobStatus,
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  attempt: row.attempt,
  progress: { done: row.done, total: row.total },
  leaseUntil: row.lease_until,
  errorCode: row.error_code,
});

/** The cursor names the last job of a page by its place in the order: base64url of `[createdAt, jobId]`. */
export const encodeJobCursor = (job: Pick<ProjectedJob, "createdAt" | "jobId">): string =>
  Buffer.from(JSON.stringify([job.createdAt, job.jobId])).toString("base64url");

/** The place a cursor names, or undefined when it is not one encodeJobCursor made. */
export const decodeJobCursor = (cursor: string): { readonly createdAt: string; readonly jobId: string } | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor) || cursor.length > 1024) return undefined;
  try {
    const place: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(place) || place.length !== 2 || typeof place[0] !== "string" || typeof place[1] !== "string") return undefined;
    const decoded = { createdAt: place[0], jobId: place[1] };
    // Only the canonical spelling: another one for the same place is not a cursor this made.
    return encodeJobCursor(decoded) === cursor ? decoded : undefined;
  } catch {
    return undefined;
  }
};

const COLUMNS = "job_id, account_id, operation, status, created_at, started_at, finished_at, attempt, done, total, lease_until, error_code";

/**
 * The readers' queries, each served by its index (a test holds each to its plan: an index search,
 * never a scan of the table or a sort). The runner's asks every instance once a second, so it
 * reads only the open jobs' partial index, already in order.
 */
export const JOB_QUERIES = {
  newest: `SELECT ${COLUMNS} FROM jobs WHERE account_id = ? ORDER BY created_at DESC, job_id DESC LIMIT ?`,
  newestBefore: `SELECT ${COLUMNS} FROM jobs WHERE account_id = ? AND (created_at, job_id) < (?, ?) ORDER BY created_at DESC, job_id DESC LIMIT ?`,
  // The first condition is the open index's own, so that the scan reads only open jobs, oldest first.
  claimable: `SELECT job_id, account_id FROM jobs WHERE ${OPEN} AND (status = 'queued' OR lease_until_ms IS NULL OR lease_until_ms <= ?)
     ORDER BY created_at, job_id LIMIT ?`,
  openOf: `SELECT count(*) AS open FROM jobs WHERE account_id = ? AND ${OPEN}`,
} as const;

export const makeSqliteJobProjection = (context: SqliteProjectionContext): JobProjectionShape => {
  const projection = makeSqliteProjection(context, jobProjectionDefinition);
  const { db } = context;
  const newest = db.prepare(JOB_QUERIES.newest);
  const newestBefore = db.prepare(JOB_QUERIES.newestBefore);
  const claimable = db.prepare(JOB_QUERIES.claimable);
  const openOf = db.prepare(JOB_QUERIES.openOf);
  const positionOf = db.prepare("SELECT position FROM checkpoints WHERE projection = ?");
  return {
    ...projection,
    jobsOf: (accountId, { limit, before }) =>
      Effect.gen(function* () {
        const place = before === undefined ? undefined : decodeJobCursor(before);
        if (before !== undefined && place === undefined) return yield* new InvalidJobCursor({ cursor: before });
        const size = Math.max(1, Math.floor(limit));
        return yield* Effect.try({
          try: () =>
            inReadTransaction(db, () => {
              // One more than the page: whether there is a next page is known without another query.
              const rows = (place === undefined
                ? newest.all(accountId, size + 1)
                : newestBefore.all(accountId, place.createdAt, place.jobId, size + 1)) as unknown as ReadonlyArray<JobRecord>;
              const jobs = rows.slice(0, size).map(toJob);
              const last = jobs.at(-1);
              const position = (positionOf.get(projection.name) as { position: number } | undefined)?.position ?? 0;
              return { position, value: { jobs, next: rows.length > size && last !== undefined ? encodeJobCursor(last) : undefined } };
            }),
          catch: unavailable,
        });
      }),
    runnable: (now, limit) =>
      Effect.try({
        try: () =>
          (claimable.all(now.getTime(), Math.max(0, Math.floor(limit))) as unknown as ReadonlyArray<{ job_id: string; account_id: string }>).map(
            (row): RunnableJob => ({ jobId: row.job_id, accountId: row.account_id }),
          ),
        catch: unavailable,
      }),
    queuedCount: (accountId) => Effect.try({ try: () => (openOf.get(accountId) as { open: number }).open, catch: unavailable }),
  };
};
