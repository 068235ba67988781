import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Context, Effect, Layer } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { nodeSha256 } from "../../src/adapters/crypto/node-sha256.ts";
import { postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { summarizeEvents } from "../../src/application/event-sourcing/copy-events.ts";
import { EventStore, type EventStoreShape } from "../../src/ports/event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";
import { itsctl, makeDataDir, provisionAccount } from "../support/service-process.ts";

/** `itsctl store migrate` through the real CLI: a SQLite store the CLI wrote, into a fresh PostgreSQL schema. */
const dirs: Array<string> = [];
const schemas: Array<string> = [];
/** One secret for both stores, as the operator would configure it. */
const MIGRATION_SECRET = randomBytes(32).toString("hex");

const freshSqlite = () => {
  const dataDir = makeDataDir();
  dirs.push(dataDir);
  return { dataDir, path: join(dataDir, "events.sqlite"), env: { DATA_DIR: dataDir, SERVER_SECRET: MIGRATION_SECRET } };
};
const freshSchemaUrl = () => {
  const schema = freshSchemaName("its_migrate");
  schemas.push(schema);
  return { schema, url: `${postgresUrl}?schema=${schema}` };
};

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await dropSchemas(schemas);
});

const withStore = <A>(layer: Layer.Layer<EventStore, unknown>, use: (store: EventStoreShape) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Layer.build(layer).pipe(Effect.flatMap((context) => use(Context.get(context, EventStore))))));

describe("itsctl store migrate", () => {
  it("copies a SQLite store into PostgreSQL in order, verifies it, and the service configuration then reads it", async () => {
    const source = freshSqlite();
    // Events from before chaining (appended to the bare store, as older code did), then chained ones through itsctl.
    // More than one page of events (the copy reads 500 at a time), interleaved over streams, with batches.
    await withStore(sqliteEventStoreLayer({ path: source.path }), (store) =>
      Effect.forEach(
        Array.from({ length: 400 }, (_, i) => i),
        (i) =>
          store.appendToStream(
            `notes-${1 + (i % 3)}`,
            Array.from({ length: 1 + (i % 2) }, (_, k) => ({ type: "Noted", data: { i, k, note: `Grüße ${i} 🧾` }, metadata: { requestId: `r-${i}` } })),
            { expectedRevision: "any" },
          ),
        { discard: true },
      ),
    );
    const first = await provisionAccount(source.env, "pro", 2);
    const second = await provisionAccount(source.env, "free", 1);
    expect((await itsctl(source.env, ["key", "delete", "--account", first.accountId, "--key", first.keys[0]!.id])).code).toBe(0);
    expect((await itsctl(source.env, ["account", "set-plan", "--account", second.accountId, "--plan", "enterprise"])).code).toBe(0);
    expect((await itsctl(source.env, ["ledger", "seal"])).code).toBe(0);
    const sealFile = join(source.dataDir, "seal.json");
    expect((await itsctl(source.env, ["ledger", "export", "--out", sealFile])).code).toBe(0);
    const expected = await withStore(sqliteEventStoreLayer({ path: source.path }), (store) => summarizeEvents(store, { sha256: nodeSha256 }));
    expect(expected.count).toBeGreaterThan(600);

    const target = freshSchemaUrl();
    const migrated = await itsctl({}, ["store", "migrate", "--from", `sqlite:${source.path}`, "--to", `postgres:${target.url}`, "--json"]);
    expect(migrated.stderr).toBe("");
    expect(migrated.code).toBe(0);
    expect(JSON.parse(migrated.stdout)).toEqual({
      from: `sqlite:${source.path}`,
      to: `postgres:${postgresUrl} (schema ${target.schema})`,
      count: expected.count,
      checksum: expected.checksum,
    });
    // Read back independently of the CLI: the same events, in the same order.
    const copied = await withStore(postgresEventStoreLayer({ connectionString: postgresUrl, schema: target.schema }), (store) =>
      summarizeEvents(store, { sha256: nodeSha256 }),
    );
    expect(copied).toEqual(expected);

    // The same CLI, configured for PostgreSQL, sees the accounts and keys that were made on SQLite.
    const onPostgres = { DATA_DIR: makeDataDir(), SERVER_SECRET: MIGRATION_SECRET, EVENT_STORE: "postgres", DATABASE_URL: target.url };
    dirs.push(onPostgres.DATA_DIR);
    for (const env of [source.env, onPostgres]) {
      const listed = await itsctl(env, ["key", "list", "--account", first.accountId, "--json"]);
      expect(listed.code).toBe(0);
      expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((k) => k.id)).toEqual([first.keys[1]!.id]);
    }
    // The chains and the seal came along unchanged: the target verifies, against its own seal and the exported one.
    for (const args of [[], ["--seal", sealFile]]) {
      const verified = await itsctl(onPostgres, ["audit", "--verify-only", "--json", ...args]);
      expect(verified.code).toBe(0);
      const { ledger } = JSON.parse(verified.stdout) as { ledger: { ok: boolean; events: number; unchained: { events: number }; seal: { root: string } } };
      expect(ledger).toMatchObject({ ok: true, events: expected.count, unchained: { events: 600 } });
      expect(ledger.seal.root).toBe((JSON.parse(readFileSync(sealFile, "utf8")) as { root: string }).root);
    }
    const reopened = await itsctl(onPostgres, ["account", "set-plan", "--account", second.accountId, "--plan", "pro", "--json"]);
    expect(JSON.parse(reopened.stdout)).toMatchObject({ id: second.accountId, plan: "pro" });

    // A second run finds the target in use and leaves it alone.
    const again = await itsctl({}, ["store", "migrate", "--from", `sqlite:${source.path}`, "--to", `postgres:${target.url}`]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already holds events");
  });

  it("refuses an empty or missing source, and stores it cannot name, with a clear message", async () => {
    const target = freshSchemaUrl();
    const empty = freshSqlite();
    await withStore(sqliteEventStoreLayer({ path: empty.path }), (store) => store.readStream("nothing"));
    const cases: Array<[ReadonlyArray<string>, RegExp]> = [
      [["--from", `sqlite:${empty.path}`, "--to", `postgres:${target.url}`], /holds no events: nothing to migrate/],
      [["--from", `sqlite:${join(empty.dataDir, "missing.sqlite")}`, "--to", `postgres:${target.url}`], /no such SQLite file/],
      [["--from", "mysql://somewhere", "--to", `postgres:${target.url}`], /not a store: "mysql:\/\/somewhere"/],
      [["--from", `sqlite:${empty.path}`, "--to", "postgres:http://x"], /not a PostgreSQL URL/],
      [["--from", `sqlite:${empty.path}`, "--to", `postgres:${postgresUrl}?schema=Robert'); DROP TABLE x;--`], /schema "Robert'\); DROP TABLE x;--"/],
      [["--from", `sqlite:${empty.path}`, "--to", "kurrentdb:http://x"], /not a KurrentDB URL/],
    ];
    for (const [args, message] of cases) {
      const result = await itsctl({}, ["store", "migrate", ...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
    }
    // Nothing was written to the target by any of these.
    const untouched = await withStore(postgresEventStoreLayer({ connectionString: postgresUrl, schema: target.schema }), (store) =>
      store.readAll({ after: 0, limit: 1 }),
    );
    expect(untouched).toEqual([]);
  });
});
