import { createHmac, randomUUID } from "node:crypto";
import { Context, Deferred, Effect, Fiber, Layer, type Scope, Stream } from "effect";
import { describe, expect, it } from "vitest";
import { chainedEventStore } from "../../../src/application/hash-chains/chained-event-store.ts";
import { chainLinkOf, GENESIS, linkIsGenuine } from "../../../src/application/hash-chains/event-chain.ts";
import { DependencyUnavailable } from "../../../src/ports/errors.ts";
import {
  ConcurrencyConflict,
  EventStore,
  type EventStoreShape,
  type JsonObject,
  type NewEvent,
  NO_STREAM,
  type RecordedEvent,
  UndecodableEvent,
} from "../../../src/ports/event-store.ts";

/** Fresh storage for one test: each `open` is another adapter instance on it, as a second process would open it. */
export interface EventStoreStorage {
  readonly open: Effect.Effect<EventStoreShape, unknown, Scope.Scope>;
  /**
   * Changes, as a hand would, the stored data of one event into a JSON value that is not an object.
   * Absent only where no stored form exists outside the process (the in-memory store).
   */
  readonly damageData?: (streamName: string, revision: number) => Effect.Effect<void, unknown>;
}

/**
 * One adapter under contract. `storage` makes fresh storage for one test (released with the scope);
 * `skip` names why the suite cannot run here (its server is absent).
 */
export interface EventStoreUnderContract {
  readonly name: string;
  readonly storage: Effect.Effect<EventStoreStorage, unknown, Scope.Scope>;
  readonly skip?: string | undefined;
}

/**
 * An adapter's faults: `unreachable` is its layer pointed at a server or file that cannot be reached
 * (absent only for the in-memory store); `lost`, where the adapter can be made so, an instance whose
 * server cannot be reached after start.
 */
export interface EventStoreFaults {
  readonly name: string;
  readonly unreachable?: Layer.Layer<EventStore, unknown>;
  readonly lost?: Effect.Effect<EventStoreShape, unknown, Scope.Scope>;
}

/** An adapter instance from its layer, alive until the enclosing scope closes. */
export const instanceOf = <E>(layer: Layer.Layer<EventStore, E>): Effect.Effect<EventStoreShape, E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map((context) => Context.get(context, EventStore)));

const event = (type: string, data: JsonObject = {}): NewEvent => ({ type, data });

/**
 * The hash chain is added above any store (application/hash-chains/chained-event-store.ts); each adapter must carry it.
 * HMAC-SHA256 as the service's chain crypto makes it, written here so that the contract imports no adapter.
 */
const chainKey = Buffer.alloc(32, 7);
const chainCrypto = { mac: (text: string) => createHmac("sha256", chainKey).update(text).digest("hex") };
const chained = (store: EventStoreShape) => chainedEventStore(store, { mac: chainCrypto.mac, newEventId: randomUUID });

/** The global position of the newest event, so that tests also hold on storage that is not empty. */
const headPosition = (store: EventStoreShape): Effect.Effect<number, unknown> =>
  Effect.gen(function* () {
    let head = 0;
    for (;;) {
      const page = yield* store.readAll({ after: head, limit: 500 });
      const last = page.at(-1);
      if (last === undefined) return head;
      head = last.globalPosition;
    }
  });

const readAllAfter = (store: EventStoreShape, after: number): Effect.Effect<ReadonlyArray<RecordedEvent>, unknown> =>
  Effect.gen(function* () {
    const events: Array<RecordedEvent> = [];
    let cursor = after;
    for (;;) {
      const page = yield* store.readAll({ after: cursor, limit: 500 });
      const last = page.at(-1);
      if (last === undefined) return events;
      events.push(...page);
      cursor = last.globalPosition;
    }
  });

const expectStrictlyIncreasing = (values: ReadonlyArray<number>) => {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] ?? Number.NaN);
};

const expectConflict = (error: unknown, streamName: string, expected: number | "any", actual: number) => {
  expect(error).toBeInstanceOf(ConcurrencyConflict);
  expect(error).toMatchObject({ _tag: "ConcurrencyConflict", streamName, expected, actual });
};

/** The rules every EventStore adapter keeps (ports/event-store.ts states them); one describe per adapter. */
export const eventStoreContract = (target: EventStoreUnderContract) =>
  describe.skipIf(target.skip !== undefined)(`EventStore contract: ${target.name}`, () => {
    /** Runs a test body with `count` instances on one fresh storage; stream names are unique per test. */
    const withStores = <A>(
      count: number,
      body: (stores: ReadonlyArray<EventStoreShape>, stream: (name: string) => string) => Effect.Effect<A, unknown, Scope.Scope>,
    ) => {
      const prefix = randomUUID().slice(0, 8);
      return Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const storage = yield* target.storage;
            const stores: Array<EventStoreShape> = [];
            for (let i = 0; i < count; i++) stores.push(yield* storage.open);
            return yield* body(stores, (name) => `${name}-${prefix}`);
          }),
        ),
      );
    };
    const withStore = <A>(body: (store: EventStoreShape, stream: (name: string) => string) => Effect.Effect<A, unknown, Scope.Scope>) =>
      withStores(1, ([store], stream) => body(store!, stream));

    it("names its head position: the newest event's, as every instance on the storage sees it", () =>
      withStores(2, ([store, other], stream) =>
        Effect.gen(function* () {
          expect(yield* store!.headPosition).toBe(yield* headPosition(store!));
          const appended = yield* store!.appendToStream(stream("head"), [event("Opened"), event("Named")], { expectedRevision: NO_STREAM });
          expect(yield* other!.headPosition).toBe(appended.lastGlobalPosition);
          expect(yield* store!.headPosition).toBe(yield* headPosition(store!));
        }),
      ));

    it("appends to a new stream expecting NO_STREAM and returns the next expected revision", () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const name = stream("account");
          const first = yield* store.appendToStream(name, [event("Opened"), event("Named")], { expectedRevision: NO_STREAM });
          expect(first.nextExpectedRevision).toBe(1);
          const second = yield* store.appendToStream(name, [event("Renamed")], { expectedRevision: first.nextExpectedRevision });
          expect(second.nextExpectedRevision).toBe(2);
          expect(second.lastGlobalPosition).toBeGreaterThan(first.lastGlobalPosition);

          const events = yield* store.readStream(name);
          expect(events.map((e) => [e.streamName, e.streamRevision, e.type])).toEqual([
            [name, 0, "Opened"],
            [name, 1, "Named"],
            [name, 2, "Renamed"],
          ]);
          expect(events[1]?.globalPosition).toBe(first.lastGlobalPosition);
          expect(events[2]?.globalPosition).toBe(second.lastGlobalPosition);
          expect(events.every((e) => e.globalPosition > 0)).toBe(true);
        }),
      ));

    it('appends with "any" to a new and to an existing stream', () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const name = stream("ledger");
          const created = yield* store.appendToStream(name, [event("A")], { expectedRevision: "any" });
          expect(created.nextExpectedRevision).toBe(0);
          const extended = yield* store.appendToStream(name, [event("B"), event("C")], { expectedRevision: "any" });
          expect(extended.nextExpectedRevision).toBe(2);
          expect((yield* store.readStream(name)).map((e) => [e.streamRevision, e.type])).toEqual([
            [0, "A"],
            [1, "B"],
            [2, "C"],
          ]);
        }),
      ));

    it("rejects a wrong expected revision with ConcurrencyConflict and writes none of the batch", () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const name = stream("quota");
          yield* store.appendToStream(name, [event("A"), event("B")], { expectedRevision: NO_STREAM });

          const onExisting = yield* Effect.flip(store.appendToStream(name, [event("X"), event("Y")], { expectedRevision: NO_STREAM }));
          expectConflict(onExisting, name, NO_STREAM, 1);
          const behind = yield* Effect.flip(store.appendToStream(name, [event("X")], { expectedRevision: 0 }));
          expectConflict(behind, name, 0, 1);
          const ahead = yield* Effect.flip(store.appendToStream(name, [event("X")], { expectedRevision: 5 }));
          expectConflict(ahead, name, 5, 1);
          const missing = stream("missing");
          const onMissing = yield* Effect.flip(store.appendToStream(missing, [event("X")], { expectedRevision: 0 }));
          expectConflict(onMissing, missing, 0, NO_STREAM);

          expect((yield* store.readStream(name)).map((e) => e.type)).toEqual(["A", "B"]);
          expect(yield* store.readStream(missing)).toEqual([]);
        }),
      ));

    it("checks the expected revision of an empty append and writes nothing", () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const name = stream("empty");
          yield* store.appendToStream(name, [event("A")], { expectedRevision: NO_STREAM });
          const head = yield* headPosition(store);
          expect((yield* store.appendToStream(name, [], { expectedRevision: 0 })).nextExpectedRevision).toBe(0);
          expectConflict(yield* Effect.flip(store.appendToStream(name, [], { expectedRevision: NO_STREAM })), name, NO_STREAM, 0);
          expect(yield* headPosition(store)).toBe(head);
        }),
      ));

    it("reads a stream in order from a given revision", () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const name = stream("steps");
          const other = stream("other");
          for (let i = 0; i < 5; i++) {
            yield* store.appendToStream(name, [event(`Step${i}`)], { expectedRevision: i - 1 });
            yield* store.appendToStream(other, [event(`Noise${i}`)], { expectedRevision: "any" });
          }
          expect((yield* store.readStream(name)).map((e) => e.type)).toEqual(["Step0", "Step1", "Step2", "Step3", "Step4"]);
          const tail = yield* store.readStream(name, { fromRevision: 2 });
          expect(tail.map((e) => [e.streamRevision, e.type])).toEqual([
            [2, "Step2"],
            [3, "Step3"],
            [4, "Step4"],
          ]);
          expectStrictlyIncreasing(tail.map((e) => e.globalPosition));
          expect(yield* store.readStream(name, { fromRevision: 5 })).toEqual([]);
          expect(yield* store.readStream(stream("never-written"))).toEqual([]);
        }),
      ));

    it("reads all streams after a global position, with a limit, in append order", () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const head = yield* headPosition(store);
          const a = stream("a");
          const b = stream("b");
          yield* store.appendToStream(a, [event("A0"), event("A1")], { expectedRevision: NO_STREAM });
          yield* store.appendToStream(b, [event("B0")], { expectedRevision: NO_STREAM });
          yield* store.appendToStream(a, [event("A2")], { expectedRevision: 1 });
          const last = yield* store.appendToStream(b, [event("B1"), event("B2")], { expectedRevision: 0 });

          const all = yield* readAllAfter(store, head);
          expect(all.map((e) => e.type)).toEqual(["A0", "A1", "B0", "A2", "B1", "B2"]);
          expect(all.map((e) => [e.streamName, e.streamRevision])).toEqual([
            [a, 0],
            [a, 1],
            [b, 0],
            [a, 2],
            [b, 1],
            [b, 2],
          ]);
          expectStrictlyIncreasing(all.map((e) => e.globalPosition));
          expect(all.every((e) => e.globalPosition > head)).toBe(true);
          expect(all.at(-1)?.globalPosition).toBe(last.lastGlobalPosition);

          const firstPage = yield* store.readAll({ after: head, limit: 2 });
          expect(firstPage.map((e) => e.type)).toEqual(["A0", "A1"]);
          const secondPage = yield* store.readAll({ after: firstPage[1]!.globalPosition, limit: 3 });
          expect(secondPage.map((e) => e.type)).toEqual(["B0", "A2", "B1"]);
          expect(yield* store.readAll({ after: last.lastGlobalPosition, limit: 10 })).toEqual([]);
        }),
      ));

    it("round-trips JSON data and metadata", () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const name = stream("json");
          const data: JsonObject = {
            text: 'Grüße, 世界! مرحبا 👩🏽‍💻 e\u0301 "quoted" back\\slash\nnew line\ttab \u0000 nul',
            numbers: [0, -1, 3.25, 1e21, Number.MAX_SAFE_INTEGER, -0.000123],
            flags: { yes: true, no: false, nothing: null },
            nested: { deeper: { list: [{ a: 1 }, [], {}, "x"], empty: {} } },
            "key with spaces & ünïcode 🔑": "value",
          };
          const metadata: JsonObject = { correlationId: "c-1", causation: { commandId: "k-9", at: "2026-01-01T00:00:00.000Z" } };
          yield* store.appendToStream(name, [{ type: "Rich", data, metadata }, event("Plain", { n: 1 })], { expectedRevision: NO_STREAM });

          const [rich, plain] = yield* store.readStream(name);
          expect(rich?.data).toEqual(data);
          expect(rich?.metadata).toEqual(metadata);
          expect(plain?.data).toEqual({ n: 1 });
          expect(plain?.metadata).toEqual({});
          const viaAll = (yield* readAllAfter(store, (rich?.globalPosition ?? 1) - 1)).find((e) => e.eventId === rich?.eventId);
          expect(viaAll?.data).toEqual(data);
          expect(viaAll?.metadata).toEqual(metadata);
        }),
      ));

    it("gives every event a unique id and a recording time, and keeps a supplied id", () =>
      withStore((store, stream) =>
        Effect.gen(function* () {
          const before = Date.now();
          const name = stream("ids");
          yield* store.appendToStream(name, [event("A"), event("B"), event("C")], { expectedRevision: NO_STREAM });
          yield* store.appendToStream(stream("ids-too"), [event("D")], { expectedRevision: NO_STREAM });
          const supplied = randomUUID();
          yield* store.appendToStream(name, [{ eventId: supplied, type: "E", data: {} }], { expectedRevision: 2 });

          const events = [...(yield* store.readStream(name)), ...(yield* store.readStream(stream("ids-too")))];
          const ids = events.map((e) => e.eventId);
          expect(new Set(ids).size).toBe(5);
          expect(ids.every((id) => id.length > 0)).toBe(true);
          expect(events.find((e) => e.type === "E")?.eventId).toBe(supplied);
          for (const e of events) {
            const recordedAt = Date.parse(e.recordedAt);
            expect(recordedAt).toBeGreaterThanOrEqual(before - 5_000);
            expect(recordedAt).toBeLessThanOrEqual(Date.now() + 5_000);
          }
        }),
      ));

    it("follows existing events, then new ones appended later by this or another instance", () =>
      withStores(2, ([store, other], stream) =>
        Effect.gen(function* () {
          const head = yield* headPosition(store!);
          const a = stream("followed-a");
          const b = stream("followed-b");
          const existing = yield* store!.appendToStream(a, [event("Old0"), event("Old1")], { expectedRevision: NO_STREAM });

          const caughtUp = yield* Deferred.make<void>();
          const following = yield* store!.follow({ after: head }).pipe(
            Stream.take(5),
            Stream.tap((e) => (e.type === "Old1" ? Deferred.succeed(caughtUp, undefined) : Effect.void)),
            Stream.runCollect,
            Effect.forkChild,
          );
          yield* Deferred.await(caughtUp);
          yield* other!.appendToStream(b, [event("New0"), event("New1")], { expectedRevision: NO_STREAM });
          yield* store!.appendToStream(a, [event("New2")], { expectedRevision: existing.nextExpectedRevision });

          const seen = yield* Fiber.join(following).pipe(Effect.timeout("15 seconds"));
          expect(seen.map((e) => e.type)).toEqual(["Old0", "Old1", "New0", "New1", "New2"]);
          expectStrictlyIncreasing(seen.map((e) => e.globalPosition));

          const fromMiddle = yield* other!.follow({ after: seen[2]!.globalPosition }).pipe(Stream.take(2), Stream.runCollect);
          expect(fromMiddle.map((e) => e.type)).toEqual(["New1", "New2"]);
        }),
      ));

    it("lets exactly one of two instances win a race on the same expected revision", () =>
      withStores(2, ([first, second], stream) =>
        Effect.gen(function* () {
          const name = stream("raced");
          yield* first!.appendToStream(name, [event("Start")], { expectedRevision: NO_STREAM });
          const batch = (who: string) => [event(`${who}0`), event(`${who}1`), event(`${who}2`)];
          const outcomes = yield* Effect.all(
            [
              Effect.result(first!.appendToStream(name, batch("First"), { expectedRevision: 0 })),
              Effect.result(second!.appendToStream(name, batch("Second"), { expectedRevision: 0 })),
            ],
            { concurrency: "unbounded" },
          );
          const wins = outcomes.filter((o) => o._tag === "Success");
          const losses = outcomes.flatMap((o) => (o._tag === "Failure" ? [o.failure] : []));
          expect(wins).toHaveLength(1);
          expect(losses).toHaveLength(1);
          expectConflict(losses[0], name, 0, 3);
          expect(wins[0]?.success.nextExpectedRevision).toBe(3);

          const events = yield* second!.readStream(name);
          const winner = outcomes[0]?._tag === "Success" ? "First" : "Second";
          expect(events.map((e) => [e.streamRevision, e.type])).toEqual([
            [0, "Start"],
            [1, `${winner}0`],
            [2, `${winner}1`],
            [3, `${winner}2`],
          ]);
        }),
      ));

    it("loses and duplicates nothing when two instances keep racing and retrying", () =>
      withStores(2, (stores, stream) =>
        Effect.gen(function* () {
          const name = stream("contended");
          const perWriter = 15;
          const writer = (store: EventStoreShape, who: string) =>
            Effect.gen(function* () {
              let conflicts = 0;
              for (let i = 0; i < perWriter; i++) {
                for (;;) {
                  const current = (yield* store.readStream(name)).length - 1;
                  const attempt = yield* Effect.result(store.appendToStream(name, [event(`${who}${i}`)], { expectedRevision: current }));
                  if (attempt._tag === "Success") break;
                  expect(attempt.failure).toBeInstanceOf(ConcurrencyConflict);
                  conflicts++;
                }
              }
              return conflicts;
            });
          yield* Effect.all([writer(stores[0]!, "A"), writer(stores[1]!, "B")], { concurrency: "unbounded" });

          const events = yield* stores[0]!.readStream(name);
          expect(events.map((e) => e.streamRevision)).toEqual(Array.from({ length: 2 * perWriter }, (_, i) => i));
          for (const who of ["A", "B"]) {
            expect(events.filter((e) => e.type.startsWith(who)).map((e) => e.type)).toEqual(Array.from({ length: perWriter }, (_, i) => `${who}${i}`));
          }
          expect(new Set(events.map((e) => e.eventId)).size).toBe(2 * perWriter);
        }),
      ));

    it("lets a follower miss nothing while several instances append at once", () =>
      withStores(3, (stores, stream) =>
        Effect.gen(function* () {
          const head = yield* headPosition(stores[0]!);
          const appendsPerWriter = 20;
          const total = stores.length * appendsPerWriter * 2;
          const following = yield* stores[0]!.follow({ after: head }).pipe(Stream.take(total), Stream.runCollect, Effect.forkChild);
          yield* Effect.forEach(
            stores,
            (store, w) =>
              Effect.forEach(
                Array.from({ length: appendsPerWriter }, (_, i) => i),
                (i) => store.appendToStream(stream(`writer${w}`), [event("Pair", { w, i }), event("Pair", { w, i })], { expectedRevision: "any" }),
              ),
            { concurrency: "unbounded" },
          );
          const seen = yield* Fiber.join(following).pipe(Effect.timeout("20 seconds"));
          const stored = yield* readAllAfter(stores[1]!, head);
          expect(stored).toHaveLength(total);
          expect(seen.map((e) => e.eventId)).toEqual(stored.map((e) => e.eventId));
        }),
      ));

    it("shows readers of the global order no gap and no reordering while many writers append to streams of their own", () =>
      withStores(3, (stores, stream) =>
        Effect.gen(function* () {
          const head = yield* headPosition(stores[0]!);
          const writersPerInstance = 4;
          const appendsPerWriter = 25;
          // Batches of 1 to 3 events, so that a batch's positions can be overtaken mid-way too.
          const batchOf = (i: number) => 1 + (i % 3);
          const total = stores.length * writersPerInstance * Array.from({ length: appendsPerWriter }, (_, i) => batchOf(i)).reduce((a, b) => a + b, 0);
          const followed: Array<RecordedEvent> = [];
          yield* stores[0]!.follow({ after: head }).pipe(
            Stream.runForEach((e) => Effect.sync(() => followed.push(e))),
            Effect.forkChild,
          );
          // A reader as a projection reads: small pages from its own last position, on another instance.
          const paged: Array<RecordedEvent> = [];
          yield* Effect.gen(function* () {
            for (;;) {
              const page = yield* stores[2]!.readAll({ after: paged.at(-1)?.globalPosition ?? head, limit: 7 });
              paged.push(...page);
              if (page.length === 0) yield* Effect.sleep("2 millis");
            }
          }).pipe(Effect.forkChild);
          yield* Effect.forEach(
            Array.from({ length: stores.length * writersPerInstance }, (_, w) => w),
            (w) =>
              Effect.forEach(
                Array.from({ length: appendsPerWriter }, (_, i) => i),
                (i) =>
                  stores[w % stores.length]!.appendToStream(
                    stream(`own${w}`),
                    Array.from({ length: batchOf(i) }, (_, k) => event("Owned", { w, i, k })),
                    { expectedRevision: Array.from({ length: i }, (_, j) => batchOf(j)).reduce((a, b) => a + b, 0) - 1 },
                  ),
                { discard: true },
              ),
            { concurrency: "unbounded", discard: true },
          );
          const stored = yield* readAllAfter(stores[1]!, head);
          expect(stored).toHaveLength(total);
          // Both readers get until they have reached the newest event; one that skipped an event then shows it missing.
          const newest = stored.at(-1)!.globalPosition;
          const reached = (seen: ReadonlyArray<RecordedEvent>) => (seen.at(-1)?.globalPosition ?? head) >= newest;
          for (const deadline = Date.now() + 20_000; !(reached(followed) && reached(paged)) && Date.now() < deadline;) yield* Effect.sleep("5 millis");
          for (const seen of [followed, paged]) {
            // Exactly once each, in the order of their positions: what a reader continues after is never passed by a later commit.
            expect(seen.map((e) => e.eventId)).toEqual(stored.map((e) => e.eventId));
            expectStrictlyIncreasing(seen.map((e) => e.globalPosition));
          }
        }),
      ));

    it("appends a batch atomically: concurrent batches never interleave", () =>
      withStores(2, (stores, stream) =>
        Effect.gen(function* () {
          const head = yield* headPosition(stores[0]!);
          const name = stream("batches");
          const batchSize = 4;
          const batches = 8;
          const writer = (store: EventStoreShape, who: string) =>
            Effect.forEach(
              Array.from({ length: batches }, (_, b) => b),
              (b) =>
                store.appendToStream(
                  name,
                  Array.from({ length: batchSize }, (_, i) => event("Item", { who, batch: b, item: i })),
                  { expectedRevision: "any" },
                ),
            );
          yield* Effect.all([writer(stores[0]!, "A"), writer(stores[1]!, "B")], { concurrency: "unbounded" });

          const expectContiguousBatches = (events: ReadonlyArray<RecordedEvent>) => {
            expect(events).toHaveLength(2 * batches * batchSize);
            for (let start = 0; start < events.length; start += batchSize) {
              const chunk = events.slice(start, start + batchSize);
              expect(chunk.map((e) => [e.data["who"], e.data["batch"], e.data["item"]])).toEqual(
                Array.from({ length: batchSize }, (_, i) => [chunk[0]?.data["who"], chunk[0]?.data["batch"], i]),
              );
            }
          };
          const inStream = yield* stores[1]!.readStream(name);
          expect(inStream.map((e) => e.streamRevision)).toEqual(Array.from({ length: inStream.length }, (_, i) => i));
          expectContiguousBatches(inStream);
          const inGlobalOrder = yield* readAllAfter(stores[1]!, head);
          expectContiguousBatches(inGlobalOrder);
          expectStrictlyIncreasing(inGlobalOrder.map((e) => e.globalPosition));
        }),
      ));

    /** Every event of the stream carries a genuine link, at its own revision, to its predecessor's mac. */
    const expectIntactChain = (events: ReadonlyArray<RecordedEvent>) => {
      let prev = GENESIS;
      for (const recorded of events) {
        const link = chainLinkOf(recorded.metadata);
        expect(link).toMatchObject({ revision: recorded.streamRevision, prev });
        expect(linkIsGenuine(chainCrypto.mac, recorded.streamName, recorded, link!)).toBe(true);
        prev = link!.mac;
      }
    };

    it("links appends into the stream's hash chain across instances, whichever instance appended last", () =>
      withStores(2, ([a, b], stream) =>
        Effect.gen(function* () {
          const [first, second] = [chained(a!), chained(b!)];
          const name = stream("chained");
          yield* first.appendToStream(name, [event("A"), event("B", { n: 1 })], { expectedRevision: NO_STREAM });
          // The other instance knows no head yet: it reads the predecessor's mac.
          yield* second.appendToStream(name, [event("C")], { expectedRevision: 1 });
          expectConflict(yield* Effect.flip(first.appendToStream(name, [event("X")], { expectedRevision: 1 })), name, 1, 2);
          yield* first.appendToStream(name, [event("D")], { expectedRevision: 2 });
          yield* second.appendToStream(name, [event("E")], { expectedRevision: "any" });
          const events = yield* a!.readStream(name);
          expect(events.map((e) => e.type)).toEqual(["A", "B", "C", "D", "E"]);
          expect(events[1]?.metadata).toMatchObject({ chain: { revision: 1 } });
          expectIntactChain(events);
        }),
      ));

    it("keeps the chain intact when instances race on one stream, and chains of other streams apart", () =>
      withStores(2, (stores, stream) =>
        Effect.gen(function* () {
          const name = stream("chain-race");
          const writer = (store: EventStoreShape, who: string) =>
            Effect.forEach(
              Array.from({ length: 8 }, (_, i) => i),
              (i) =>
                Effect.gen(function* () {
                  const head = (yield* store.readStream(name)).at(-1)?.streamRevision ?? NO_STREAM;
                  yield* store.appendToStream(name, [event("Raced", { who, i })], { expectedRevision: head });
                }).pipe(Effect.retry({ while: (error) => error instanceof ConcurrencyConflict, times: 50 })),
              { discard: true },
            );
          const other = stream("chain-other");
          yield* Effect.all(
            [
              writer(chained(stores[0]!), "A"),
              writer(chained(stores[1]!), "B"),
              chained(stores[0]!).appendToStream(other, [event("Apart")], { expectedRevision: NO_STREAM }),
            ],
            { concurrency: "unbounded" },
          );
          const events = yield* stores[0]!.readStream(name);
          expect(events).toHaveLength(16);
          expectIntactChain(events);
          expectIntactChain(yield* stores[1]!.readStream(other));
        }),
      ));

    it("reports a stored event whose data is not a JSON object as UndecodableEvent naming it, on every read, never as the store being down", (context) =>
      Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const storage = yield* target.storage;
            const { damageData } = storage;
            if (damageData === undefined) return context.skip("this store keeps no rows outside the process");
            const store = yield* storage.open;
            const head = yield* headPosition(store);
            const name = `damaged-${randomUUID().slice(0, 8)}`;
            yield* store.appendToStream(name, [event("Fine"), event("Edited", { n: 1 })], { expectedRevision: NO_STREAM });
            yield* damageData(name, 1);
            const failures = [
              yield* Effect.flip(store.readStream(name)),
              yield* Effect.flip(store.readAll({ after: head, limit: 10 })),
              yield* Effect.flip(store.follow({ after: head }).pipe(Stream.take(2), Stream.runCollect)),
            ];
            for (const failure of failures) {
              expect(failure).toBeInstanceOf(UndecodableEvent);
              expect(failure).toMatchObject({
                _tag: "UndecodableEvent",
                streamName: name,
                revision: 1,
                type: "Edited",
                problem: "its data is not a JSON object",
              });
            }
            expect(yield* store.readStream(name, { fromRevision: 2 })).toEqual([]);
          }),
        ),
      ));
  });

/**
 * Faults every adapter reports as DependencyUnavailable naming itself (`event-store (<name>)`): they
 * need no server running, so they run even where the main suite is skipped.
 */
export const eventStoreFaultsContract = (target: EventStoreFaults) =>
  describe.skipIf(target.unreachable === undefined && target.lost === undefined)(`EventStore contract, faults: ${target.name}`, () => {
    const dependency = `event-store (${target.name})`;
    if (target.unreachable !== undefined) {
      const unreachable = target.unreachable;
      it("fails to start with DependencyUnavailable when its server or file cannot be reached", async () => {
        const error = await Effect.runPromise(Effect.flip(Layer.build(unreachable).pipe(Effect.scoped)));
        expect(error).toBeInstanceOf(DependencyUnavailable);
        expect(error).toMatchObject({ dependency });
      });
    }
    if (target.lost !== undefined) {
      const lost = target.lost;
      it("fails every operation with DependencyUnavailable once its server cannot be reached", () =>
        Effect.runPromise(
          Effect.scoped(
            Effect.gen(function* () {
              const store = yield* lost;
              for (const operation of [
                store.appendToStream("s", [event("A")], { expectedRevision: "any" }),
                store.readStream("s"),
                store.readAll({ after: 0, limit: 1 }),
                store.headPosition,
                Stream.runCollect(Stream.take(store.follow({ after: 0 }), 1)),
              ] as ReadonlyArray<Effect.Effect<unknown, unknown>>) {
                expect(yield* Effect.flip(operation)).toBeInstanceOf(DependencyUnavailable);
              }
            }),
          ),
        ));
    }
  });
