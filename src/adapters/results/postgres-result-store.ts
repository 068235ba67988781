import { Effect, Layer, Option } from "effect";
import type { Pool } from "pg";
import { escapeIdentifier } from "pg";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { ResultStore, type ResultStoreShape } from "../../ports/result-store.ts";
import { createInSchema } from "../postgres/create-in-schema.ts";
import { scopedPostgresPool } from "../postgres/postgres-pool.ts";
import { isSafeResultId } from "./result-id.ts";

export interface PostgresResultStoreOptions {
  readonly connectionString: string;
  /** The schema holding the `results` table, created if missing: the event store's, so one database serves every instance. */
  readonly schema: string;
  readonly poolSize?: number;
}

const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: "result-store", cause });

/**
 * Results in a PostgreSQL table that every instance of a deployment reads, so a result URL works
 * whichever instance it reaches, also after the one that made it is gone. A result is one row
 * (bytes in `bytea`, at most the engines' output size); an upsert replaces a result put again.
 * Expiry is checked on every read and expired rows are deleted by `deleteExpired`. Variants are
 * rows of `result_variants`, keyed by result and format, with their result's expiry.
 */
export const makePostgresResultStore = (pool: Pool, schema: string): ResultStoreShape => {
  const table = `${escapeIdentifier(schema)}.results`;
  const variants = `${escapeIdentifier(schema)}.result_variants`;
  const query = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: unavailable });
  const unsafe = (resultId: string) => Effect.die(new Error(`unsafe result id ${JSON.stringify(resultId)}`));
  const bytea = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  type Row = { content_type: string; expires_at: Date; bytes: Buffer };
  const found = ({ rows: [row] }: { rows: Array<Row> }) =>
    row === undefined ? Option.none() : Option.some({ bytes: new Uint8Array(row.bytes), contentType: row.content_type, expiresAt: row.expires_at });
  return {
    put: ({ resultId, bytes, contentType, expiresAt }) => {
      if (!isSafeResultId(resultId)) return unsafe(resultId);
      return query(() =>
        pool.query(
          `INSERT INTO ${table} (result_id, content_type, expires_at, bytes) VALUES ($1, $2, $3, $4)
           ON CONFLICT (result_id) DO UPDATE SET content_type = EXCLUDED.content_type, expires_at = EXCLUDED.expires_at, bytes = EXCLUDED.bytes`,
          [resultId, contentType, expiresAt, bytea(bytes)],
        ),
      ).pipe(Effect.asVoid);
    },
    get: (resultId, now) => {
      if (!isSafeResultId(resultId)) return Effect.succeed(Option.none());
      return query(() =>
        pool.query<Row>(`SELECT content_type, expires_at, bytes FROM ${table} WHERE result_id = $1 AND expires_at > $2`, [resultId, now]),
      ).pipe(Effect.map(found));
    },
    putVariant: ({ resultId, format, bytes, contentType, expiresAt }) => {
      if (!isSafeResultId(resultId)) return unsafe(resultId);
      return query(() =>
        pool.query(
          `INSERT INTO ${variants} (result_id, format, content_type, expires_at, bytes) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (result_id, format) DO UPDATE SET content_type = EXCLUDED.content_type, expires_at = EXCLUDED.expires_at, bytes = EXCLUDED.bytes`,
          [resultId, format, contentType, expiresAt, bytea(bytes)],
        ),
      ).pipe(Effect.asVoid);
    },
    getVariant: (resultId, format, now) => {
      if (!isSafeResultId(resultId)) return Effect.succeed(Option.none());
      return query(() =>
        pool.query<Row>(`SELECT content_type, expires_at, bytes FROM ${variants} WHERE result_id = $1 AND format = $2 AND expires_at > $3`, [
          resultId,
          format,
          now,
        ]),
      ).pipe(Effect.map(found));
    },
    deleteExpired: (now) =>
      query(() =>
        pool.query<{ deleted: string }>(
          `WITH gone_variants AS (DELETE FROM ${variants} WHERE expires_at <= $1 RETURNING 1),
                gone_results AS (DELETE FROM ${table} WHERE expires_at <= $1 RETURNING 1)
           SELECT (SELECT count(*) FROM gone_variants) + (SELECT count(*) FROM gone_results) AS deleted`,
          [now],
        ),
      ).pipe(Effect.map(({ rows: [row] }) => Number(row?.deleted ?? 0))),
  };
};

/** The results table, with the index the expiry sweep reads. */
const ensureTable = (pool: Pool, schema: string) =>
  createInSchema(pool, schema, (s) => [
    `CREATE TABLE IF NOT EXISTS ${s}.results (
        result_id text PRIMARY KEY,
        content_type text NOT NULL,
        expires_at timestamptz NOT NULL,
        bytes bytea NOT NULL
      )`,
    `CREATE INDEX IF NOT EXISTS results_expires_at ON ${s}.results (expires_at)`,
    `CREATE TABLE IF NOT EXISTS ${s}.result_variants (
        result_id text NOT NULL,
        format text NOT NULL,
        content_type text NOT NULL,
        expires_at timestamptz NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (result_id, format)
      )`,
    `CREATE INDEX IF NOT EXISTS result_variants_expires_at ON ${s}.result_variants (expires_at)`,
  ]);

/** The result store in PostgreSQL; its pool ends with the layer's scope. */
export const postgresResultStoreLayer = (options: PostgresResultStoreOptions) =>
  Layer.effect(ResultStore)(
    scopedPostgresPool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 4,
      connectTimeoutMs: 5_000,
      prepare: (pool) => ensureTable(pool, options.schema),
      unavailable,
    }).pipe(Effect.map((pool) => makePostgresResultStore(pool, options.schema))),
  );
