import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Layer, Stream } from "effect";
import { Pool } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { kurrentDbEventStoreLayer } from "../../src/adapters/event-store/kurrentdb-event-store.ts";
import { makePostgresEventStore, postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { DependencyUnavailable } from "../../src/ports/errors.ts";
import { postgresUrl } from "../support/postgres.ts";

const failureOf = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect));

describe("event stores report an unreachable database as DependencyUnavailable", () => {
  it("postgres: at start-up, when nothing listens", async () => {
    const error = await failureOf(Layer.build(postgresEventStoreLayer({ connectionString: "postgres://postgres@127.0.0.1:1/postgres" })).pipe(Effect.scoped));
    expect(error).toBeInstanceOf(DependencyUnavailable);
    expect(error).toMatchObject({ dependency: "event-store (postgres)" });
  });

  it("postgres: on every operation, when connections fail", async () => {
    const pool = new Pool({ connectionString: postgresUrl.replace(/\/[^/]*$/, "/its_no_such_database"), connectionTimeoutMillis: 2_000 });
    pool.on("error", () => undefined);
    try {
      const store = makePostgresEventStore(pool);
      for (const operation of [
        store.appendToStream("s", [{ type: "A", data: {} }], { expectedRevision: "any" }),
        store.readStream("s"),
        store.readAll({ after: 0, limit: 1 }),
        Stream.runCollect(Stream.take(store.follow({ after: 0 }), 1)),
      ]) {
        expect(await failureOf<unknown, unknown>(operation)).toBeInstanceOf(DependencyUnavailable);
      }
    } finally {
      await pool.end();
    }
  });

  it("kurrentdb: at start-up, when nothing listens", async () => {
    const error = await failureOf(
      Layer.build(kurrentDbEventStoreLayer({ connectionString: "kurrentdb://127.0.0.1:1?tls=false&maxDiscoverAttempts=1" })).pipe(Effect.scoped),
    );
    expect(error).toBeInstanceOf(DependencyUnavailable);
    expect(error).toMatchObject({ dependency: "event-store (kurrentdb)" });
  });

  const dir = mkdtempSync(join(tmpdir(), "its-events-unavailable-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("sqlite: when the file cannot be opened", async () => {
    const blocker = join(dir, "not-a-folder");
    writeFileSync(blocker, "");
    const error = await failureOf(Layer.build(sqliteEventStoreLayer({ path: join(blocker, "events.sqlite") })).pipe(Effect.scoped));
    expect(error).toBeInstanceOf(DependencyUnavailable);
    expect(error).toMatchObject({ dependency: "event-store (sqlite)" });
  });
});
