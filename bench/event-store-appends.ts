/**
 * Appends per second, one event at a time to one stream (each append expecting the previous
 * revision), on the SQLite default and on PostgreSQL, in one run; SQLite is the baseline of the ratio.
 * The in-memory store shows what the port itself costs. Usage: node bench/event-store-appends.ts [appends]
 *
 * `node bench/event-store-appends.ts many-streams [seconds] [rounds]`: 1, 8, 32 and 64 writers on
 * streams of their own through the PostgreSQL adapter against as many plain inserts (support/many-streams.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Context, Effect, Layer } from "effect";
import { inMemoryEventStoreLayer } from "../src/adapters/event-store/in-memory-event-store.ts";
import { postgresEventStoreLayer } from "../src/adapters/event-store/postgres-event-store.ts";
import { sqliteEventStoreLayer } from "../src/adapters/event-store/sqlite-event-store.ts";
import { EventStore, NO_STREAM } from "../src/ports/event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../test/support/postgres.ts";
import { manyStreams } from "./support/many-streams.ts";

if (process.argv[2] === "many-streams") {
  await manyStreams(Number(process.argv[3] ?? 3), Number(process.argv[4] ?? 2));
  process.exit(0);
}

const appends = Number(process.argv[2] ?? 1_000);
const warmup = 50;
const dir = mkdtempSync(join(tmpdir(), "its-bench-events-"));
const schema = freshSchemaName("its_bench");

const measure = <E>(layer: Layer.Layer<EventStore, E>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const store = Context.get(yield* Layer.build(layer), EventStore);
        let revision = NO_STREAM;
        const appendOne = Effect.gen(function* () {
          revision = (yield* store.appendToStream("bench", [{ type: "Counted", data: { n: revision + 1, note: "a typical small event" } }], {
            expectedRevision: revision,
          })).nextExpectedRevision;
        });
        for (let i = 0; i < warmup; i++) yield* appendOne;
        const started = performance.now();
        for (let i = 0; i < appends; i++) yield* appendOne;
        return (performance.now() - started) / 1_000;
      }),
    ),
  );

try {
  const rows = [
    { store: "in-memory", seconds: await measure(inMemoryEventStoreLayer()) },
    { store: "sqlite (WAL, synchronous=NORMAL, the default)", seconds: await measure(sqliteEventStoreLayer({ path: join(dir, "normal.sqlite") })) },
    { store: "sqlite (WAL, synchronous=FULL)", seconds: await measure(sqliteEventStoreLayer({ path: join(dir, "full.sqlite"), synchronous: "full" })) },
    { store: "postgresql (pg Pool)", seconds: await measure(postgresEventStoreLayer({ connectionString: postgresUrl, schema })) },
  ];
  const baseline = rows[1]!.seconds;
  console.log(`${appends} sequential single-event appends to one stream (after ${warmup} warm-up appends)\n`);
  console.log(`| store | seconds | appends/s | speed vs sqlite |`);
  console.log(`|---|---:|---:|---:|`);
  for (const { store, seconds } of rows) {
    console.log(`| ${store} | ${seconds.toFixed(3)} | ${Math.round(appends / seconds)} | ${(baseline / seconds).toFixed(2)}× |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await dropSchemas([schema]);
}
