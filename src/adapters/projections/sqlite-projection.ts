import type { DatabaseSync } from "node:sqlite";
import { Effect, Stream } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { eventCategory } from "../../ports/event-bus.ts";
import { type RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";
import type { ProjectionShape, StoreBinding } from "../../ports/projections.ts";

/** What makes one projection: its tables, and how an event of its category changes them. */
export interface SqliteProjectionDefinition {
  readonly name: string;
  readonly category: string;
  /** CREATE … IF NOT EXISTS statements. */
  readonly schema: string;
  /** Emptied by a rebuild. */
  readonly tables: ReadonlyArray<string>;
  /** Prepares its statements on one connection and returns the change one event makes. */
  readonly writer: (db: DatabaseSync) => (event: RecordedEvent) => void;
}

export interface SqliteProjectionContext {
  readonly db: DatabaseSync;
  readonly storageId: string;
  /** Rebuilds run on a connection of their own: their transaction spans many reads of the store. */
  readonly openConnection: () => DatabaseSync;
}

export const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: "projections (sqlite)", cause });

/** Applying events: an event its stream's codec cannot read stays that, named; anything else is the database's. */
const applyFailed = (cause: unknown) => (cause instanceof UndecodableEvent ? cause : unavailable(cause));

/** IMMEDIATE takes the write lock at once, so the checkpoint read inside cannot go stale before the write. */
export const inWriteTransaction = <A>(db: DatabaseSync, body: () => A): A => {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = body();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
};

/** One read transaction: what it reads is one snapshot, even while other processes write. */
export const inReadTransaction = <A>(db: DatabaseSync, body: () => A): A => {
  db.exec("BEGIN");
  try {
    return body();
  } finally {
    db.exec("COMMIT");
  }
};

const checkpointStatements = (db: DatabaseSync, name: string) => {
  const read = db.prepare("SELECT position FROM checkpoints WHERE projection = ?");
  const write = db.prepare("INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position");
  return {
    read: (): number => (read.get(name) as { position: number } | undefined)?.position ?? 0,
    write: (position: number): void => void write.run(name, position),
  };
};

/** The store a projection's rows come from, in projection_meta (see sqlite-projections.ts). */
const storeStatements = (db: DatabaseSync, name: string) => {
  const read = db.prepare("SELECT value FROM projection_meta WHERE name = ?");
  const write = db.prepare("INSERT INTO projection_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value");
  const key = `store:${name}`;
  return {
    read: (): string | undefined => (read.get(key) as { value: string } | undefined)?.value,
    write: (identity: string): void => void write.run(key, identity),
  };
};

const emptyTables = (db: DatabaseSync, definition: SqliteProjectionDefinition) => {
  for (const table of definition.tables) db.exec(`DELETE FROM ${table}`);
};

/** Applies events past the checkpoint, in order, and moves the checkpoint; call inside a write transaction. */
const applyPast = (
  definition: SqliteProjectionDefinition,
  write: (event: RecordedEvent) => void,
  checkpoint: ReturnType<typeof checkpointStatements>,
  events: ReadonlyArray<RecordedEvent>,
): number => {
  let position = checkpoint.read();
  const start = position;
  for (const event of events) {
    if (event.globalPosition <= position) continue;
    if (eventCategory(event.streamName) === definition.category) write(event);
    position = event.globalPosition;
  }
  if (position !== start) checkpoint.write(position);
  return position;
};

/** The checkpoint sits in the same database as the rows and moves in the same transaction. */
export const makeSqliteProjection = (context: SqliteProjectionContext, definition: SqliteProjectionDefinition): ProjectionShape => {
  const { db } = context;
  const write = definition.writer(db);
  const checkpoint = checkpointStatements(db, definition.name);
  const boundStore = storeStatements(db, definition.name);
  return {
    name: definition.name,
    storageId: context.storageId,
    position: Effect.try({ try: checkpoint.read, catch: unavailable }),
    apply: (events) =>
      Effect.try({
        try: () => {
          const last = events.at(-1);
          // A redelivery takes no write lock.
          if (last === undefined || last.globalPosition <= checkpoint.read()) return;
          inWriteTransaction(db, () => applyPast(definition, write, checkpoint, events));
        },
        catch: applyFailed,
      }),
    rebuild: (events) =>
      Effect.acquireUseRelease(
        Effect.try({ try: context.openConnection, catch: unavailable }),
        (connection) =>
          Effect.gen(function* () {
            const rebuildWrite = definition.writer(connection);
            const rebuildCheckpoint = checkpointStatements(connection, definition.name);
            yield* Effect.try({
              try: () => {
                connection.exec("BEGIN IMMEDIATE");
                emptyTables(connection, definition);
                rebuildCheckpoint.write(0);
              },
              catch: unavailable,
            });
            yield* Stream.runForEachArray(events, (page) =>
              Effect.try({ try: () => void applyPast(definition, rebuildWrite, rebuildCheckpoint, page), catch: applyFailed }),
            );
            return yield* Effect.try({
              try: () => {
                const position = rebuildCheckpoint.read();
                connection.exec("COMMIT");
                return position;
              },
              catch: unavailable,
            });
          }),
        (connection) =>
          Effect.sync(() => {
            if (connection.isTransaction) connection.exec("ROLLBACK");
            connection.close();
          }),
      ),
    bindToStore: (storeIdentity) =>
      Effect.try({
        try: () =>
          inWriteTransaction(db, (): StoreBinding => {
            const previous = boundStore.read();
            if (previous === storeIdentity) return { _tag: "Bound" };
            // Rows only ever move with the position: at 0 there is nothing of another store to drop.
            const empty = checkpoint.read() === 0;
            boundStore.write(storeIdentity);
            if (previous === undefined && empty) return { _tag: "Bound" };
            emptyTables(db, definition);
            checkpoint.write(0);
            return { _tag: "Reset", previous: previous ?? null };
          }),
        catch: unavailable,
      }),
  };
};
