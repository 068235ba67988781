import { Effect, type Scope } from "effect";
import { Pool } from "pg";

/**
 * A PostgreSQL pool for one adapter's lifetime: opened, prepared (its tables made), and ended
 * with the layer that holds it. Every PostgreSQL adapter opens its pool this way.
 */
export const scopedPostgresPool = <E>(options: {
  readonly connectionString: string;
  readonly max: number;
  readonly connectTimeoutMs: number;
  /** Makes what the adapter needs (schema, tables); a failure ends the pool and fails the layer. */
  readonly prepare: (pool: Pool) => Promise<void>;
  readonly unavailable: (cause: unknown) => E;
}): Effect.Effect<Pool, E, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pool = new Pool({ connectionString: options.connectionString, max: options.max, connectionTimeoutMillis: options.connectTimeoutMs });
        // An idle connection that drops (server restart) must not crash the process; the next
        // query reports the outage as DependencyUnavailable.
        pool.on("error", () => undefined);
        try {
          await options.prepare(pool);
          return pool;
        } catch (error) {
          await pool.end();
          throw error;
        }
      },
      catch: options.unavailable,
    }),
    (pool) => Effect.promise(() => pool.end()),
  );
