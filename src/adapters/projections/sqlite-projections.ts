import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Context, Effect, Layer } from "effect";
import { JobProjection, KeyProjection, UsageProjection } from "../../ports/projections.ts";
import { jobProjectionDefinition, makeSqliteJobProjection } from "./sqlite-job-projection.ts";
import { keyProjectionDefinition, makeSqliteKeyProjection } from "./sqlite-key-projection.ts";
import { type SqliteProjectionContext, unavailable } from "./sqlite-projection.ts";
import { makeSqliteUsageProjection, usageProjectionDefinition } from "./sqlite-usage-projection.ts";

export interface SqliteProjectionsOptions {
  /** The database file (e.g. DATA_DIR/projections.sqlite); its folder is made if missing. */
  readonly path: string;
  /**
   * How long a write waits for another process's write lock. node:sqlite blocks the event loop
   * while it waits, so keep it short: a write that gives up is retried by its consumer.
   */
  readonly busyTimeoutMs?: number;
}

/** What every projections database holds beside its projections' own tables. */
const metaSchema = `
  CREATE TABLE IF NOT EXISTS projection_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) STRICT;
`;

const open = (path: string, busyTimeoutMs: number, schema: string): DatabaseSync => {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  try {
    // NORMAL (not FULL) under WAL: a process killed mid-write loses nothing; a power cut may lose the
    // last commits, rows and checkpoint together, and the projection then catches up from the store.
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db.exec(metaSchema + schema);
    // Made once per database: durable subscriptions are named after it (see ProjectionShape.storageId).
    db.prepare("INSERT OR IGNORE INTO projection_meta (name, value) VALUES ('storage_id', ?)").run(randomUUID());
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
};

/** A projections database with `schema`'s tables, open for as long as the scope. */
export const openProjectionDatabase = (options: SqliteProjectionsOptions, schema: string) =>
  Effect.acquireRelease(Effect.try({ try: () => open(options.path, options.busyTimeoutMs ?? 250, schema), catch: unavailable }), (db) =>
    Effect.sync(() => db.close()),
  ).pipe(
    Effect.flatMap((db) =>
      Effect.try({
        try: (): SqliteProjectionContext => ({
          db,
          storageId: (db.prepare("SELECT value FROM projection_meta WHERE name = 'storage_id'").get() as { value: string }).value,
          openConnection: () => open(options.path, 10_000, schema),
        }),
        catch: unavailable,
      }),
    ),
  );

class ProjectionDatabase extends Context.Service<ProjectionDatabase, SqliteProjectionContext>()("ProjectionDatabase") {}

const databaseLayer = (options: SqliteProjectionsOptions) =>
  Layer.effect(ProjectionDatabase)(
    openProjectionDatabase(options, usageProjectionDefinition.schema + keyProjectionDefinition.schema + jobProjectionDefinition.schema),
  );

/** The usage, key and job projections in one SQLite file, shared by every process on the same DATA_DIR. */
export const sqliteProjectionsLayer = (options: SqliteProjectionsOptions) =>
  Layer.mergeAll(
    Layer.effect(UsageProjection)(Effect.map(ProjectionDatabase, makeSqliteUsageProjection)),
    Layer.effect(KeyProjection)(Effect.map(ProjectionDatabase, makeSqliteKeyProjection)),
    Layer.effect(JobProjection)(Effect.map(ProjectionDatabase, makeSqliteJobProjection)),
  ).pipe(Layer.provide(databaseLayer(options)));
