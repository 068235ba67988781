/**
 * The many-streams mode of bench:event-store: N writers, each appending one event at a time to a
 * stream of its own, through the PostgreSQL adapter, against N connections doing the same inserts
 * into a table like the store's (same columns and indexes) with nothing else: no head check, no
 * expected revision, no Effect (a prepared single-row INSERT, autocommit). Rounds alternate the two sides so that the shared machine's drift
 * weighs on both alike. The ratio at 32 writers and the growth from 1 writer are the results.
 */
import { randomUUID } from "node:crypto";
import { Context, Effect, Layer } from "effect";
import pg from "pg";
import { postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { EventStore, NO_STREAM } from "../../src/ports/event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../../test/support/postgres.ts";

const data = (n: number) => JSON.stringify({ n, note: "a typical small event" });

/** Appends per second by `writers` fibers through the adapter, each on its own stream, for `seconds`. */
const throughAdapter = (schema: string, writers: number, seconds: number) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const store = Context.get(yield* Layer.build(postgresEventStoreLayer({ connectionString: postgresUrl, schema, poolSize: writers })), EventStore);
        let appended = 0;
        const writer = (stream: string, until: number) =>
          Effect.gen(function* () {
            let revision = NO_STREAM;
            while (performance.now() < until) {
              const result = yield* store.appendToStream(stream, [{ type: "Counted", data: { n: revision + 1, note: "a typical small event" } }], {
                expectedRevision: revision,
              });
              revision = result.nextExpectedRevision;
              appended++;
            }
          });
        const run = (until: number) =>
          Effect.all(
            Array.from({ length: writers }, () => writer(`bench-${randomUUID()}`, until)),
            { concurrency: "unbounded", discard: true },
          );
        yield* run(performance.now() + 300); // warm-up: connections, plans
        appended = 0;
        const started = performance.now();
        yield* run(started + seconds * 1000);
        return appended / ((performance.now() - started) / 1000);
      }),
    ),
  );

/** Inserts per second by `writers` connections into `table`, one row per statement, for `seconds`. */
const plainInserts = async (table: string, writers: number, seconds: number) => {
  const pool = new pg.Pool({ connectionString: postgresUrl, max: writers });
  // Prepared, as the adapter's append is: the baseline pays no more planning than it.
  const insert = `INSERT INTO ${table} (event_id, stream_name, stream_revision, type, data, metadata) VALUES ($1, $2, $3, $4, $5, $6)`;
  try {
    let inserted = 0;
    const writer = async (stream: string, until: number) => {
      for (let revision = 0; performance.now() < until; revision++) {
        await pool.query({ name: "plain-insert", text: insert, values: [randomUUID(), stream, revision, "Counted", data(revision), "{}"] });
        inserted++;
      }
    };
    const run = (until: number) => Promise.all(Array.from({ length: writers }, () => writer(`bench-${randomUUID()}`, until)));
    await run(performance.now() + 300);
    inserted = 0;
    const started = performance.now();
    await run(started + seconds * 1000);
    return inserted / ((performance.now() - started) / 1000);
  } finally {
    await pool.end();
  }
};

export const manyStreams = async (seconds: number, rounds: number): Promise<void> => {
  const schema = freshSchemaName("its_bench");
  const plainSchema = freshSchemaName("its_bench_plain");
  try {
    // The adapter makes its table; the plain one copies it: columns, identity, primary key, unique index.
    await throughAdapter(schema, 1, 0.1);
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${plainSchema}; CREATE TABLE ${plainSchema}.events (LIKE ${schema}.events INCLUDING ALL)`);
    await admin.end();

    console.log(`Many streams: N writers, each appending one event at a time to a stream of its own (${rounds} × ${seconds} s per side, alternating)\n`);
    console.log("| writers | adapter appends/s | plain inserts/s | adapter / plain | adapter vs 1 writer |");
    console.log("|---:|---:|---:|---:|---:|");
    let single = Number.NaN;
    for (const writers of [1, 8, 32, 64]) {
      let adapter = 0;
      let plain = 0;
      for (let round = 0; round < rounds; round++) {
        plain += await plainInserts(`${plainSchema}.events`, writers, seconds);
        adapter += await throughAdapter(schema, writers, seconds);
      }
      adapter /= rounds;
      plain /= rounds;
      if (writers === 1) single = adapter;
      console.log(`| ${writers} | ${Math.round(adapter)} | ${Math.round(plain)} | ${(adapter / plain).toFixed(2)} | ${(adapter / single).toFixed(1)}× |`);
    }
  } finally {
    await dropSchemas([schema, plainSchema]);
  }
};
