import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLOutputValue } from "node:sqlite";
import { type Duration, Effect, Layer } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { type AppendResult, ConcurrencyConflict, EventStore, type EventStoreShape, NO_STREAM, type RecordedEvent } from "../../ports/event-store.ts";
import { checkExpectedRevision } from "./expected-revision.ts";
import { defaultPollInterval, followByPolling } from "./follow-by-polling.ts";
import { sqliteStreamHeads } from "./sqlite-stream-heads.ts";
import { readFailure, storedEvent } from "./stored-event-row.ts";

export interface SqliteEventStoreOptions {
  /** The database file; its folder is created if missing. */
  readonly path: string;
  /** How long a write waits for another process's write transaction before giving up. */
  readonly busyTimeoutMs?: number;
  readonly pollInterval?: Duration.Input;
  /**
   * "normal" (default): a commit is safe from a killed process but not from a power cut, which may
   * roll back the last moments of appends. "full": every commit waits for an fsync, which blocks
   * this process's event loop (node:sqlite is synchronous) and cost ~15% of a /generate request.
   */
  readonly synchronous?: "normal" | "full";
}

// The INTEGER PRIMARY KEY is the global position. AUTOINCREMENT keeps a position from ever being
// handed out twice, even if the newest row were removed by hand: followers store positions.
const schema = `
  CREATE TABLE IF NOT EXISTS events (
    global_position INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL,
    stream_name TEXT NOT NULL,
    stream_revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (stream_name, stream_revision)
  ) STRICT;
`;

const columns = "global_position, event_id, stream_name, stream_revision, type, data, metadata, recorded_at";

type Row = Record<string, SQLOutputValue>;

// Rows are checked column by column, never cast: a row changed by hand fails here, named, not later as a wrong type.
const text = (row: Row, column: string): string => {
  const value = row[column];
  if (typeof value !== "string") throw new TypeError(`events.${column} at position ${String(row["global_position"])} is not text`);
  return value;
};

const integer = (row: Row, column: string): number => {
  const value = row[column];
  if (typeof value !== "number" || !Number.isSafeInteger(value))
    throw new TypeError(`events.${column} at position ${String(row["global_position"])} is not an integer`);
  return value;
};

const toRecorded = (row: Row): RecordedEvent =>
  storedEvent(
    {
      eventId: text(row, "event_id"),
      streamName: text(row, "stream_name"),
      revision: integer(row, "stream_revision"),
      globalPosition: integer(row, "global_position"),
      type: text(row, "type"),
    },
    { data: text(row, "data"), metadata: text(row, "metadata"), recordedAt: text(row, "recorded_at") },
    true,
  );

const SQLITE_CONSTRAINT_UNIQUE = 2067;
const isUniqueViolation = (error: unknown) => typeof error === "object" && error !== null && "errcode" in error && error.errcode === SQLITE_CONSTRAINT_UNIQUE;

const DEPENDENCY = "event-store (sqlite)";
const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: DEPENDENCY, cause });
const readFailed = readFailure(DEPENDENCY);

export const openSqliteEventDatabase = (options: SqliteEventStoreOptions): DatabaseSync => {
  mkdirSync(dirname(options.path), { recursive: true });
  // The busy timeout makes a writer wait for another process's write lock instead of failing at once.
  // node:sqlite is synchronous, so that wait blocks this process's event loop: appends are one short
  // transaction each, which keeps such waits to milliseconds.
  const db = new DatabaseSync(options.path, { timeout: options.busyTimeoutMs ?? 5_000 });
  try {
    // WAL lets readers (followers in other processes) run while one process writes.
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"};`);
    db.exec(schema);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
};

export const makeSqliteEventStore = (db: DatabaseSync, options: Pick<SqliteEventStoreOptions, "pollInterval"> = {}): EventStoreShape => {
  const streamHead = db.prepare("SELECT stream_revision, global_position FROM events WHERE stream_name = ? ORDER BY stream_revision DESC LIMIT 1");
  const insert = db.prepare("INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const selectStream = db.prepare(`SELECT ${columns} FROM events WHERE stream_name = ? AND stream_revision >= ? ORDER BY stream_revision`);
  const selectAll = db.prepare(`SELECT ${columns} FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`);
  const selectHead = db.prepare("SELECT coalesce(max(global_position), 0) AS head FROM events");
  const heads = sqliteStreamHeads(db);

  const headOf = (streamName: string) => {
    const row = streamHead.get(streamName) as { stream_revision: number; global_position: number } | undefined;
    return { revision: row?.stream_revision ?? NO_STREAM, position: row?.global_position ?? 0 };
  };

  const readAll: EventStoreShape["readAll"] = ({ after, limit }) =>
    Effect.try({
      try: () => selectAll.all(after, limit).map(toRecorded),
      catch: readFailed,
    });

  return {
    appendToStream: (streamName, events, { expectedRevision }) =>
      Effect.try({
        try: (): AppendResult | ConcurrencyConflict => {
          // IMMEDIATE takes the write lock up front, so the revision read below cannot go stale before
          // the inserts, in this process or any other.
          db.exec("BEGIN IMMEDIATE");
          try {
            const head = headOf(streamName);
            const conflict = checkExpectedRevision(streamName, expectedRevision, head.revision);
            if (conflict) {
              db.exec("ROLLBACK");
              heads.forget(streamName);
              return conflict;
            }
            const recordedAt = new Date().toISOString();
            let revision = head.revision;
            let position = head.position;
            for (const event of events) {
              revision++;
              const result = insert.run(
                event.eventId ?? randomUUID(),
                streamName,
                revision,
                event.type,
                JSON.stringify(event.data),
                JSON.stringify(event.metadata ?? {}),
                recordedAt,
              );
              position = Number(result.lastInsertRowid);
            }
            db.exec("COMMIT");
            heads.appended(streamName, revision);
            return { nextExpectedRevision: revision, lastGlobalPosition: position };
          } catch (error) {
            if (db.isTransaction) db.exec("ROLLBACK");
            heads.forget(streamName);
            // The UNIQUE (stream, revision) constraint is the last line of defence should the check above ever be bypassed.
            if (isUniqueViolation(error)) {
              return new ConcurrencyConflict({ streamName, expected: expectedRevision, actual: headOf(streamName).revision });
            }
            throw error;
          }
        },
        catch: unavailable,
      }).pipe(Effect.flatMap((outcome) => (outcome instanceof ConcurrencyConflict ? Effect.fail(outcome) : Effect.succeed(outcome)))),
    readStream: (streamName, readOptions) =>
      Effect.try({
        try: () => {
          const from = readOptions?.fromRevision ?? 0;
          if (heads.nothingFrom(streamName, from)) return [];
          const events = selectStream.all(streamName, from).map(toRecorded);
          heads.read(streamName, from, events.at(-1)?.streamRevision);
          return events;
        },
        catch: readFailed,
      }),
    readAll,
    headPosition: Effect.try({ try: () => integer(selectHead.get()!, "head"), catch: unavailable }),
    follow: ({ after }) => followByPolling(readAll, after, { pollInterval: options.pollInterval ?? defaultPollInterval }),
  };
};

/** The default event store: one SQLite file, shared safely by the server and CLI processes. Closed with the layer's scope. */
export const sqliteEventStoreLayer = (options: SqliteEventStoreOptions) =>
  Layer.effect(EventStore)(
    Effect.acquireRelease(Effect.try({ try: () => openSqliteEventDatabase(options), catch: unavailable }), (db) => Effect.sync(() => db.close())).pipe(
      Effect.map((db) => makeSqliteEventStore(db, options)),
    ),
  );
