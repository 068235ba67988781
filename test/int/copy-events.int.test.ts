import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Context, Effect, Layer, type Scope } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { nodeSha256 } from "../../src/adapters/crypto/node-sha256.ts";
import { inMemoryEventStoreLayer } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { copyAllEvents, CopyVerificationFailed, summarizeEvents, TargetStoreNotEmpty } from "../../src/application/event-sourcing/copy-events.ts";
import { EventStore, type EventStoreShape, NO_STREAM, type RecordedEvent } from "../../src/ports/event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";

const dir = mkdtempSync(join(tmpdir(), "its-copy-events-"));
const schemas: Array<string> = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropSchemas(schemas);
});

const instanceOf = <E>(layer: Layer.Layer<EventStore, E>): Effect.Effect<EventStoreShape, E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map((context) => Context.get(context, EventStore)));
const sqlite = () => instanceOf(sqliteEventStoreLayer({ path: join(dir, `${randomUUID()}.sqlite`) }));
const postgres = () => {
  const schema = freshSchemaName("its_test");
  schemas.push(schema);
  return instanceOf(postgresEventStoreLayer({ connectionString: postgresUrl, schema, poolSize: 2 }));
};
const options = { sha256: nodeSha256, pageSize: 7 };

/** A few hundred events over interleaved streams, single appends and batches, with varied JSON. */
const seed = (store: EventStoreShape) =>
  Effect.gen(function* () {
    const revisions = new Map<string, number>();
    for (let i = 0; i < 120; i++) {
      const stream = `account-${i % 7}`;
      const size = 1 + (i % 3);
      const result = yield* store.appendToStream(
        stream,
        Array.from({ length: size }, (_, k) => ({
          type: k === 0 ? "Charged" : "Noted",
          data: { i, k, amount: i * 1.5, note: `Grüße ${i} 🧾`, tags: [i % 2 === 0, null, { nested: { k } }] },
          metadata: { correlationId: `c-${i}`, source: i % 2 ? "api" : "cli" },
        })),
        { expectedRevision: revisions.get(stream) ?? NO_STREAM },
      );
      revisions.set(stream, result.nextExpectedRevision);
    }
  });

const readEverything = (store: EventStoreShape) =>
  Effect.gen(function* () {
    const events: Array<RecordedEvent> = [];
    for (;;) {
      const page = yield* store.readAll({ after: events.at(-1)?.globalPosition ?? 0, limit: 100 });
      if (page.length === 0) return events;
      events.push(...page);
    }
  });

const kept = ({ globalPosition: _p, recordedAt: _r, ...rest }: RecordedEvent) => rest;

describe("copyAllEvents", () => {
  it("uses a real SHA-256", () => {
    const hash = nodeSha256();
    hash.update("abc");
    expect(hash.digest()).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("copies SQLite into PostgreSQL in global order, keeping streams, revisions, ids and payloads, and verifies it", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const from = yield* sqlite();
          const to = yield* postgres();
          yield* seed(from);
          const source = yield* readEverything(from);

          const report = yield* copyAllEvents(from, to, options);
          expect(report.count).toBe(source.length);
          expect(report).toEqual(yield* summarizeEvents(from, options));
          expect(report.checksum).toMatch(/^[0-9a-f]{64}$/);

          const copied = yield* readEverything(to);
          expect(copied.map(kept)).toEqual(source.map(kept));
          for (const stream of ["account-0", "account-6"]) {
            expect((yield* to.readStream(stream)).map(kept)).toEqual((yield* from.readStream(stream)).map(kept));
          }
          // The copy goes on as a store: the next append continues each stream's revisions.
          const next = yield* to.appendToStream("account-0", [{ type: "After", data: {} }], {
            expectedRevision: (yield* from.readStream("account-0")).length - 1,
          });
          expect(next.nextExpectedRevision).toBe((yield* from.readStream("account-0")).length);
        }),
      ),
    ));

  it("refuses a target that already holds events", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const from = yield* sqlite();
          const to = yield* postgres();
          yield* seed(from);
          yield* to.appendToStream("already-here", [{ type: "X", data: {} }], { expectedRevision: NO_STREAM });
          const error = yield* Effect.flip(copyAllEvents(from, to, options));
          expect(error).toBeInstanceOf(TargetStoreNotEmpty);
          expect(error).toMatchObject({ firstStreamName: "already-here" });
        }),
      ),
    ));

  it("fails verification when the target does not give back what was written", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const from = yield* sqlite();
          yield* seed(from);
          const inner = yield* instanceOf(inMemoryEventStoreLayer());
          // A target that silently alters one stored payload.
          const lossy: EventStoreShape = {
            ...inner,
            readAll: (args) =>
              inner.readAll(args).pipe(Effect.map((events) => events.map((e) => (e.globalPosition === 42 ? { ...e, data: { ...e.data, amount: 0 } } : e)))),
          };
          const error = yield* Effect.flip(copyAllEvents(from, lossy, options));
          expect(error).toBeInstanceOf(CopyVerificationFailed);
          const failure = error as CopyVerificationFailed;
          expect(failure.target.count).toBe(failure.copied.count);
          expect(failure.target.checksum).not.toBe(failure.copied.checksum);
        }),
      ),
    ));
});
