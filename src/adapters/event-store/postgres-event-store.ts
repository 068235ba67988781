import { createHash, randomUUID } from "node:crypto";
import { type Duration, Effect, Layer } from "effect";
import type { Pool } from "pg";
import { DependencyUnavailable } from "../../ports/errors.ts";
import {
  type AppendResult,
  ConcurrencyConflict,
  EventStore,
  type EventStoreShape,
  type ExpectedRevision,
  NO_STREAM,
  type RecordedEvent,
} from "../../ports/event-store.ts";
import { scopedPostgresPool } from "../postgres/postgres-pool.ts";
import { checkExpectedRevision } from "./expected-revision.ts";
import { defaultPollInterval, followByPolling } from "./follow-by-polling.ts";
import { ensureEventsSchema, eventsTable, settledReadFunction, settledReadWaitMs } from "./postgres-events-schema.ts";
import { defaultPostgresSchema } from "./postgres-schema-name.ts";
import { readFailure, storedEvent } from "./stored-event-row.ts";

export interface PostgresEventStoreOptions {
  readonly connectionString: string;
  /** The schema holding the events table, created if missing (tests use a fresh one per run). */
  readonly schema?: string;
  readonly poolSize?: number;
  /** How long to wait for a connection before reporting the database unavailable. */
  readonly connectTimeoutMs?: number;
  readonly pollInterval?: Duration.Input;
}

interface EventRow {
  readonly global_position: string;
  readonly event_id: string;
  readonly stream_name: string;
  readonly stream_revision: string;
  readonly type: string;
  /** As the json columns hold them: checked to be objects before they become a RecordedEvent. */
  readonly data: unknown;
  readonly metadata: unknown;
  readonly recorded_at: Date;
}

// bigint columns arrive as strings; positions and revisions stay far below 2^53.
const toRecorded = (row: EventRow): RecordedEvent =>
  storedEvent(
    { eventId: row.event_id, streamName: row.stream_name, revision: Number(row.stream_revision), globalPosition: Number(row.global_position), type: row.type },
    { data: row.data, metadata: row.metadata, recordedAt: row.recorded_at.toISOString() },
  );

const UNIQUE_VIOLATION = "23505";
const isUniqueViolation = (error: unknown) => typeof error === "object" && error !== null && "code" in error && error.code === UNIQUE_VIOLATION;

const DEPENDENCY = "event-store (postgres)";
const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: DEPENDENCY, cause });
const readFailed = readFailure(DEPENDENCY);

const columns = "global_position, event_id, stream_name, stream_revision, type, data, metadata, recorded_at";

/** An append with "any" that keeps losing races on its stream tries this often before it reports the conflict. */
const ANY_REVISION_ATTEMPTS = 100;

/**
 * An append in one statement, so in one round trip and one implicit transaction: read the stream's
 * head, and insert the batch after it only if the head is the expected one ($2; NULL for "any").
 * Appends take no lock that another stream's append waits for (the table's own is shared by all
 * writers): two appends to different streams never wait for each other, and readers of the global
 * order see positions only once they are settled (postgres-events-schema.ts). Two appends to one
 * stream that read the same head both insert its next revision; UNIQUE(stream_name, stream_revision)
 * lets the first to commit win and fails the other, which is then a ConcurrencyConflict: per-stream
 * optimistic concurrency stays exact.
 * ORDER BY ordinality draws positions in batch order.
 */
const appendStatement = (table: string) => `
  WITH head AS MATERIALIZED (
    SELECT coalesce(newest.stream_revision, -1) AS revision, coalesce(newest.global_position, 0) AS position
    FROM (SELECT) AS stream
    LEFT JOIN LATERAL (
      SELECT stream_revision, global_position FROM ${table} WHERE stream_name = $1 ORDER BY stream_revision DESC LIMIT 1
    ) AS newest ON true
  ), inserted AS (
    INSERT INTO ${table} (event_id, stream_name, stream_revision, type, data, metadata)
    SELECT e.id, $1, head.revision + e.ordinality, e.type, e.data, e.metadata
    FROM head, unnest($3::text[], $4::text[], $5::json[], $6::json[]) WITH ORDINALITY AS e(id, type, data, metadata, ordinality)
    WHERE $2::bigint IS NULL OR head.revision = $2::bigint
    ORDER BY e.ordinality
    RETURNING global_position
  )
  SELECT head.revision, head.position, (SELECT max(global_position) FROM inserted) AS last_position FROM head`;

export const makePostgresEventStore = (pool: Pool, options: Pick<PostgresEventStoreOptions, "schema" | "pollInterval"> = {}): EventStoreShape => {
  const schema = options.schema ?? defaultPostgresSchema;
  const table = eventsTable(schema);
  // Prepared once per connection under a name (the schema's hash keeps instances on one pool apart):
  // the append's plan is made once instead of at every append.
  const named = (name: string, text: string) => ({ name: `its-${name}-${createHash("sha256").update(schema).digest("hex").slice(0, 16)}`, text });
  const append = named("append", appendStatement(table));
  const readSettled = named("read-settled", `SELECT ${columns} FROM ${settledReadFunction(schema)}($1, $2, ${settledReadWaitMs})`);
  const readFrom = named("read-stream", `SELECT ${columns} FROM ${table} WHERE stream_name = $1 AND stream_revision >= $2 ORDER BY stream_revision`);

  const streamHead = async (streamName: string) => {
    const { rows } = await pool.query<{ stream_revision: string }>(
      `SELECT stream_revision FROM ${table} WHERE stream_name = $1 ORDER BY stream_revision DESC LIMIT 1`,
      [streamName],
    );
    return rows[0] ? Number(rows[0].stream_revision) : NO_STREAM;
  };

  const appendOnce = async (
    streamName: string,
    events: Parameters<EventStoreShape["appendToStream"]>[1],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult | ConcurrencyConflict> => {
    const { rows } = await pool.query<{ revision: string; position: string; last_position: string | null }>({
      ...append,
      values: [
        streamName,
        expectedRevision === "any" ? null : expectedRevision,
        events.map((event) => event.eventId ?? randomUUID()),
        events.map((event) => event.type),
        events.map((event) => JSON.stringify(event.data)),
        events.map((event) => JSON.stringify(event.metadata ?? {})),
      ],
    });
    const { revision, position, last_position } = rows[0]!;
    const head = Number(revision);
    if (last_position !== null) return { nextExpectedRevision: head + events.length, lastGlobalPosition: Number(last_position) };
    return checkExpectedRevision(streamName, expectedRevision, head) ?? { nextExpectedRevision: head, lastGlobalPosition: Number(position) };
  };

  const appendEvents = async (
    streamName: string,
    events: Parameters<EventStoreShape["appendToStream"]>[1],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult | ConcurrencyConflict> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await appendOnce(streamName, events, expectedRevision);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // "any" lost a race to a concurrent append of the same stream: it goes after it instead.
        if (expectedRevision === "any" && attempt < ANY_REVISION_ATTEMPTS) continue;
        return new ConcurrencyConflict({ streamName, expected: expectedRevision, actual: await streamHead(streamName) });
      }
    }
  };

  const readAll: EventStoreShape["readAll"] = ({ after, limit }) =>
    Effect.tryPromise({
      try: async () => (await pool.query<EventRow>({ ...readSettled, values: [after, limit] })).rows.map(toRecorded),
      catch: readFailed,
    });

  return {
    appendToStream: (streamName, events, { expectedRevision }) =>
      Effect.tryPromise({ try: () => appendEvents(streamName, events, expectedRevision), catch: unavailable }).pipe(
        Effect.flatMap((outcome) => (outcome instanceof ConcurrencyConflict ? Effect.fail(outcome) : Effect.succeed(outcome))),
      ),
    readStream: (streamName, readOptions) =>
      Effect.tryPromise({
        try: async () => (await pool.query<EventRow>({ ...readFrom, values: [streamName, readOptions?.fromRevision ?? 0] })).rows.map(toRecorded),
        catch: readFailed,
      }),
    readAll,
    headPosition: Effect.tryPromise({
      try: async () => Number((await pool.query<{ head: string }>(`SELECT coalesce(max(global_position), 0) AS head FROM ${table}`)).rows[0]!.head),
      catch: unavailable,
    }),
    follow: ({ after }) => followByPolling(readAll, after, { pollInterval: options.pollInterval ?? defaultPollInterval }),
  };
};

/**
 * An event store in PostgreSQL; creates its schema and table if missing, upgrades an earlier
 * version's table in place (and says so in the log), and ends its pool with the layer's scope.
 */
export const postgresEventStoreLayer = (options: PostgresEventStoreOptions) =>
  Layer.effect(EventStore)(
    Effect.gen(function* () {
      const schema = options.schema ?? defaultPostgresSchema;
      let upgraded = false;
      const pool = yield* scopedPostgresPool({
        connectionString: options.connectionString,
        max: options.poolSize ?? 10,
        connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
        prepare: async (pool) => void ({ upgraded } = await ensureEventsSchema(pool, schema)),
        unavailable,
      });
      if (upgraded) {
        yield* Effect.logInfo(
          `event store (postgres, schema ${schema}): upgraded in place, positions unchanged: appends no longer take turns on a table-wide lock, ` +
            "and readers of the global order read as far as it is settled; upgrade every instance of the deployment together",
        );
      }
      return makePostgresEventStore(pool, options);
    }),
  );
