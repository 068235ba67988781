import { randomUUID } from "node:crypto";
import { type Duration, Effect, Layer } from "effect";
import type { Pool } from "pg";
import { escapeIdentifier, type PoolClient } from "pg";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { type AppendResult, ConcurrencyConflict, EventStore, type EventStoreShape, NO_STREAM, type RecordedEvent } from "../../ports/event-store.ts";
import { createInSchema } from "../postgres/create-in-schema.ts";
import { scopedPostgresPool } from "../postgres/postgres-pool.ts";
import { checkExpectedRevision } from "./expected-revision.ts";
import { defaultPollInterval, followByPolling } from "./follow-by-polling.ts";
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

export const defaultPostgresSchema = "event_store";

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

/** The events table; `json` rather than `jsonb` keeps the stored text exactly as written (jsonb rejects "\u0000"). */
const ensureSchema = (pool: Pool, schema: string) =>
  createInSchema(pool, schema, (s) => [
    `CREATE TABLE IF NOT EXISTS ${s}.events (
        global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id text NOT NULL,
        stream_name text NOT NULL,
        stream_revision bigint NOT NULL,
        type text NOT NULL,
        data json NOT NULL,
        metadata json NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (stream_name, stream_revision)
      )`,
  ]);

export const makePostgresEventStore = (pool: Pool, options: Pick<PostgresEventStoreOptions, "schema" | "pollInterval"> = {}): EventStoreShape => {
  const schema = options.schema ?? defaultPostgresSchema;
  const table = `${escapeIdentifier(schema)}.events`;

  const streamHead = async (client: Pool | PoolClient, streamName: string) => {
    const { rows } = await client.query<{ stream_revision: string; global_position: string }>(
      `SELECT stream_revision, global_position FROM ${table} WHERE stream_name = $1 ORDER BY stream_revision DESC LIMIT 1`,
      [streamName],
    );
    const row = rows[0];
    return { revision: row ? Number(row.stream_revision) : NO_STREAM, position: row ? Number(row.global_position) : 0 };
  };

  const append = async (
    streamName: string,
    events: Parameters<EventStoreShape["appendToStream"]>[1],
    expectedRevision: Parameters<EventStoreShape["appendToStream"]>[2]["expectedRevision"],
  ): Promise<AppendResult | ConcurrencyConflict> => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // Appends to this table take turns. Identity values are drawn when a row is inserted but become
      // visible only at commit: two overlapping appends could commit positions 11 then 10, and a
      // follower that read 11 before 10 committed would continue after 11 and skip 10 forever.
      // Holding this lock until commit makes positions commit in the order they were drawn. The key is
      // the table's oid, unique in the database; unlike LOCK TABLE it never waits on autovacuum.
      await client.query("SELECT pg_advisory_xact_lock($1::regclass::oid::bigint)", [table]);
      const head = await streamHead(client, streamName);
      const conflict = checkExpectedRevision(streamName, expectedRevision, head.revision);
      if (conflict || events.length === 0) {
        await client.query("ROLLBACK");
        return conflict ?? { nextExpectedRevision: head.revision, lastGlobalPosition: head.position };
      }
      // One statement for the whole batch; ORDER BY ordinality draws positions in batch order.
      const { rows } = await client.query<{ global_position: string }>(
        `INSERT INTO ${table} (event_id, stream_name, stream_revision, type, data, metadata)
         SELECT id, $1, $2::bigint + ordinality, type, data, metadata
         FROM unnest($3::text[], $4::text[], $5::json[], $6::json[]) WITH ORDINALITY AS e(id, type, data, metadata, ordinality)
         ORDER BY ordinality
         RETURNING global_position`,
        [
          streamName,
          head.revision,
          events.map((event) => event.eventId ?? randomUUID()),
          events.map((event) => event.type),
          events.map((event) => JSON.stringify(event.data)),
          events.map((event) => JSON.stringify(event.metadata ?? {})),
        ],
      );
      await client.query("COMMIT");
      return {
        nextExpectedRevision: head.revision + events.length,
        lastGlobalPosition: Math.max(...rows.map((row) => Number(row.global_position))),
      };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      // UNIQUE(stream_name, stream_revision) is the last line of defence should the check above ever be bypassed.
      if (isUniqueViolation(error)) {
        return new ConcurrencyConflict({ streamName, expected: expectedRevision, actual: (await streamHead(pool, streamName)).revision });
      }
      throw error;
    } finally {
      client.release();
    }
  };

  const readAll: EventStoreShape["readAll"] = ({ after, limit }) =>
    Effect.tryPromise({
      try: async () =>
        (await pool.query<EventRow>(`SELECT ${columns} FROM ${table} WHERE global_position > $1 ORDER BY global_position LIMIT $2`, [after, limit])).rows.map(
          toRecorded,
        ),
      catch: readFailed,
    });

  return {
    appendToStream: (streamName, events, { expectedRevision }) =>
      Effect.tryPromise({ try: () => append(streamName, events, expectedRevision), catch: unavailable }).pipe(
        Effect.flatMap((outcome) => (outcome instanceof ConcurrencyConflict ? Effect.fail(outcome) : Effect.succeed(outcome))),
      ),
    readStream: (streamName, readOptions) =>
      Effect.tryPromise({
        try: async () =>
          (
            await pool.query<EventRow>(`SELECT ${columns} FROM ${table} WHERE stream_name = $1 AND stream_revision >= $2 ORDER BY stream_revision`, [
              streamName,
              readOptions?.fromRevision ?? 0,
            ])
          ).rows.map(toRecorded),
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

/** An event store in PostgreSQL; creates its schema and table if missing, and ends its pool with the layer's scope. */
export const postgresEventStoreLayer = (options: PostgresEventStoreOptions) =>
  Layer.effect(EventStore)(
    scopedPostgresPool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      prepare: (pool) => ensureSchema(pool, options.schema ?? defaultPostgresSchema),
      unavailable,
    }).pipe(Effect.map((pool) => makePostgresEventStore(pool, options))),
  );
