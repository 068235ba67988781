import { Context, Effect, Layer, Logger, Stream } from "effect";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { DependencyUnavailable } from "../../src/ports/errors.ts";
import { EventStore, type EventStoreShape, NO_STREAM } from "../../src/ports/event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";

/**
 * The PostgreSQL store without a table-wide lock on appends: what its readers of the global order
 * wait for, and the upgrade of a table the previous version wrote (a schema outliving one run).
 */
const schemas: Array<string> = [];
const freshSchema = () => {
  const schema = freshSchemaName("its_settled");
  schemas.push(schema);
  return schema;
};
afterAll(() => dropSchemas(schemas));

const withStore = <A>(schema: string, use: (store: EventStoreShape) => Effect.Effect<A, unknown>, logs: Array<string> = []) =>
  Effect.runPromise(
    Layer.build(postgresEventStoreLayer({ connectionString: postgresUrl, schema, pollInterval: "10 millis" })).pipe(
      Effect.flatMap((context) => use(Context.get(context, EventStore))),
      Effect.scoped,
      Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push((Array.isArray(message) ? message : [message]).map(String).join(" ")))])),
    ),
  );

const withClient = async <A>(use: (client: Client) => Promise<A>): Promise<A> => {
  const client = new Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
};

/** An append held open on its own connection: it has drawn its position and not committed yet. */
const openAppend = async (client: Client, schema: string, streamName: string) => {
  await client.query("BEGIN");
  const { rows } = await client.query<{ global_position: string }>(
    `INSERT INTO ${schema}.events (event_id, stream_name, stream_revision, type, data, metadata)
     VALUES (gen_random_uuid()::text, $1, 0, 'Held', '{}', '{}') RETURNING global_position`,
    [streamName],
  );
  return Number(rows[0]!.global_position);
};

const settlesWithin = <A>(promise: Promise<A>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe("PostgreSQL event store: reads of the global order", () => {
  for (const outcome of ["COMMIT", "ROLLBACK"] as const) {
    it(`waits for an append in flight below a committed one, then reads on in position order (${outcome.toLowerCase()})`, () =>
      withClient(async (held) => {
        const schema = freshSchema();
        await withStore(schema, (store) => store.appendToStream("setup", [{ type: "Opened", data: {} }], { expectedRevision: NO_STREAM }));
        const heldPosition = await openAppend(held, schema, "held");
        await withStore(schema, (store) =>
          Effect.gen(function* () {
            const later = yield* store.appendToStream("later", [{ type: "Later", data: {} }], { expectedRevision: NO_STREAM });
            expect(later.lastGlobalPosition).toBeGreaterThan(heldPosition);
            expect(yield* store.headPosition).toBe(later.lastGlobalPosition);
            // The later event is committed, but a reader that returned it now would continue after it and never see the held one.
            const read = Effect.runPromise(store.readAll({ after: heldPosition - 1, limit: 10 }));
            expect(yield* Effect.promise(() => settlesWithin(read, 300))).toBe(false);
            yield* Effect.promise(() => held.query(outcome));
            const events = yield* Effect.promise(() => read);
            expect(events.map((e) => [e.globalPosition, e.type])).toEqual([
              ...(outcome === "COMMIT" ? [[heldPosition, "Held"]] : []),
              [later.lastGlobalPosition, "Later"],
            ]);
          }),
        );
      }));
  }

  it("reports the store unavailable when an append stays in flight for more than the wait", () =>
    withClient(async (held) => {
      const schema = freshSchema();
      await withStore(schema, (store) => store.appendToStream("setup", [{ type: "Opened", data: {} }], { expectedRevision: NO_STREAM }));
      try {
        const heldPosition = await openAppend(held, schema, "held");
        await withStore(schema, (store) =>
          Effect.gen(function* () {
            yield* store.appendToStream("later", [{ type: "Later", data: {} }], { expectedRevision: NO_STREAM });
            const error = yield* Effect.flip(store.readAll({ after: heldPosition - 1, limit: 10 }));
            expect(error).toBeInstanceOf(DependencyUnavailable);
            expect(String((error as DependencyUnavailable).cause)).toMatch(/still in flight after 5000 ms/);
            // A reader already past the held position is not held up by it.
            expect(yield* store.readAll({ after: heldPosition + 1, limit: 10 })).toEqual([]);
          }),
        );
      } finally {
        await held.query("ROLLBACK");
      }
    }));
});

describe("PostgreSQL event store: a table written by the previous version", () => {
  /** The table as the previous version made it, with events it appended: positions 1 to 3, then 5 (4 was rolled back). */
  const previousVersionTable = async (client: Client, schema: string) => {
    const insert = `INSERT INTO ${schema}.events (event_id, stream_name, stream_revision, type, data, metadata) VALUES`;
    await client.query(`
      CREATE SCHEMA ${schema};
      CREATE TABLE ${schema}.events (
        global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id text NOT NULL,
        stream_name text NOT NULL,
        stream_revision bigint NOT NULL,
        type text NOT NULL,
        data json NOT NULL,
        metadata json NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (stream_name, stream_revision)
      );
      ${insert} ('e1', 'account-1', 0, 'Opened', '{"n":1}', '{}'), ('e2', 'account-1', 1, 'Named', '{"n":2}', '{}'), ('e3', 'key-1', 0, 'Issued', '{"n":3}', '{}');
    `);
    await client.query("BEGIN");
    await client.query(`${insert} ('lost', 'x', 0, 'Lost', '{}', '{}')`);
    await client.query("ROLLBACK");
    await client.query(`${insert} ('e5', 'key-1', 1, 'Used', '{"n":5}', '{}')`);
  };

  it("is upgraded in place at start, said in the log, with its positions kept; appends and readers carry on", async () => {
    const schema = freshSchema();
    await withClient((client) => previousVersionTable(client, schema));
    const logs: Array<string> = [];
    await withStore(
      schema,
      (store) =>
        Effect.gen(function* () {
          const before = yield* store.readAll({ after: 0, limit: 10 });
          expect(before.map((e) => [e.globalPosition, e.eventId, e.streamName, e.streamRevision])).toEqual([
            [1, "e1", "account-1", 0],
            [2, "e2", "account-1", 1],
            [3, "e3", "key-1", 0],
            [5, "e5", "key-1", 1],
          ]);
          const appended = yield* store.appendToStream("account-1", [{ type: "Renamed", data: {} }], { expectedRevision: 1 });
          expect(appended).toEqual({ nextExpectedRevision: 2, lastGlobalPosition: 6 });
          const stale = yield* Effect.flip(store.appendToStream("key-1", [{ type: "Used", data: {} }], { expectedRevision: 0 }));
          expect(stale).toMatchObject({ _tag: "ConcurrencyConflict", expected: 0, actual: 1 });
          const followed = yield* store.follow({ after: 3 }).pipe(Stream.take(2), Stream.runCollect);
          expect(followed.map((e) => e.globalPosition)).toEqual([5, 6]);
        }),
      logs,
    );
    expect(logs.filter((line) => line.includes(`schema ${schema}): upgraded in place, positions unchanged`))).toHaveLength(1);

    // The next start finds it current and says nothing of an upgrade.
    const again: Array<string> = [];
    await withStore(schema, (store) => store.readAll({ after: 0, limit: 10 }).pipe(Effect.map((events) => expect(events).toHaveLength(5))), again);
    expect(again.filter((line) => line.includes("upgraded in place"))).toEqual([]);
  });

  it("is not reported as upgraded when the store is new", async () => {
    const logs: Array<string> = [];
    await withStore(freshSchema(), (store) => store.headPosition, logs);
    expect(logs.filter((line) => line.includes("upgraded in place"))).toEqual([]);
  });
});
