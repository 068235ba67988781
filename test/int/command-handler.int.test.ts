import { randomUUID } from "node:crypto";
import { Context, Effect, Fiber, Layer, ManagedRuntime, type Scope } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { inMemoryEventStoreLayer, makeInMemoryEventStorage } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { handleCommand, loadState } from "../../src/application/event-sourcing/command-handler.ts";
import { idempotencyStreamType } from "../../src/application/event-sourcing/events/idempotency-events.ts";
import { quotaEventCodec, quotaLedgerStreamType } from "../../src/application/event-sourcing/events/quota-events.ts";
import { inProcessStreamLocks, type StreamLocks } from "../../src/application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache, type StreamStateCache } from "../../src/application/event-sourcing/stream-state-cache.ts";
import { EventStore, type EventStoreShape, type JsonObject, NO_STREAM, UndecodableEvent } from "../../src/ports/event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";

const now = new Date("2026-11-22T10:00:00Z");
const byTest = { actor: { kind: "service", task: "command-handler test" } } as const;
const reserve = (requestId: string) => ({
  type: "ReserveQuota" as const,
  requestId,
  units: 1,
  accountId: "acc",
  keyId: "k",
  operation: "generate" as const,
  period: "2026-11",
  limit: 3,
  expiresAt: new Date(now.getTime() + 60_000),
  now,
});

/** Two "processes": separate caches and store handles over one storage, as two instances would have. */
const instance = (storage: ReturnType<typeof makeInMemoryEventStorage>, reads: Array<number | undefined>) => {
  const counting = Layer.effect(EventStore)(
    Effect.map(EventStore, (store) => ({
      ...store,
      readStream: (name: string, options?: { readonly fromRevision?: number }) => {
        reads.push(options?.fromRevision);
        return store.readStream(name, options);
      },
    })),
  ).pipe(Layer.provide(inMemoryEventStoreLayer({ storage })));
  return ManagedRuntime.make(Layer.mergeAll(counting, lruStreamStateCache(), inProcessStreamLocks));
};

describe("command handling with cached stream state", () => {
  it("reads only the events after the cached revision, and still sees other writers' events", async () => {
    const storage = makeInMemoryEventStorage();
    const readsA: Array<number | undefined> = [];
    const a = instance(storage, readsA);
    const b = instance(storage, []);
    const stream = "quota-acc-2026-11";
    const run = <A, E>(runtime: typeof a, effect: Effect.Effect<A, E, EventStore | StreamStateCache | StreamLocks>) => runtime.runPromise(effect);

    await run(a, handleCommand(quotaLedgerStreamType, stream, reserve("r1"), byTest));
    await run(b, handleCommand(quotaLedgerStreamType, stream, reserve("r2"), byTest));
    const reserved = await run(a, handleCommand(quotaLedgerStreamType, stream, reserve("r3"), byTest));
    expect(reserved.events.map((e) => e.type)).toEqual(["QuotaReserved"]);
    expect(readsA).toEqual([0, 1]);

    // The limit is 3 and r1, r2 (by the other instance) and r3 hold it: A must refuse, not overshoot.
    const fourth = await run(a, handleCommand(quotaLedgerStreamType, stream, reserve("r4"), byTest));
    expect(fourth.events.map((e) => e.type)).toEqual(["QuotaReservationRefused"]);
    const { state, revision } = await run(b, loadState(quotaLedgerStreamType, stream));
    expect(revision).toBe(3);
    expect(state.reservations.size).toBe(3);
  });

  it("decides the commands waiting for a stream's turn one after the other, and appends their events together", async () => {
    const appends: Array<number> = [];
    // A store whose appends take a while, as a networked one's commits do, so that commands queue behind one.
    const slow = Layer.effect(EventStore)(
      Effect.map(EventStore, (store) => ({
        ...store,
        appendToStream: (...args: Parameters<EventStoreShape["appendToStream"]>) =>
          Effect.sleep("20 millis").pipe(Effect.andThen(Effect.sync(() => appends.push(args[1].length))), Effect.andThen(store.appendToStream(...args))),
      })),
    ).pipe(Layer.provide(inMemoryEventStoreLayer({ storage: makeInMemoryEventStorage() })));
    const runtime = ManagedRuntime.make(Layer.mergeAll(slow, lruStreamStateCache(), inProcessStreamLocks));
    const stream = "quota-acc-2026-12";
    const requests = Array.from({ length: 10 }, (_, i) => `r${i}`);
    const outcomes = await runtime.runPromise(
      Effect.all(
        [
          ...requests.map((requestId) => handleCommand(quotaLedgerStreamType, stream, reserve(requestId), { ...byTest, requestId })),
          // Committing a reservation that does not exist is refused; the commands around it carry on.
          handleCommand(quotaLedgerStreamType, stream, { type: "CommitQuota", requestId: "unknown", now }, byTest),
        ].map((command) => Effect.result(command)),
        { concurrency: "unbounded" },
      ),
    );
    // The first command had the turn alone; the ten behind it went together in one append.
    expect(appends).toEqual([1, 9]);
    const handled = outcomes.slice(0, 10).map((outcome) => (outcome._tag === "Success" ? outcome.success : undefined));
    // Exactly as one at a time: the limit of 3 holds, each command gets its own event, revision and state after it.
    expect(handled.map((h) => h?.events.map((e) => [e.type, e.data.requestId]))).toEqual(
      requests.map((requestId, i) => [[i < 3 ? "QuotaReserved" : "QuotaReservationRefused", requestId]]),
    );
    expect(handled.map((h) => h?.revision)).toEqual(requests.map((_, i) => i));
    expect(handled.map((h) => h?.state.reservations.size)).toEqual(requests.map((_, i) => Math.min(i + 1, 3)));
    expect(outcomes[10]).toMatchObject({ _tag: "Failure", failure: { _tag: "CommandRejected" } });
    const stored = await runtime.runPromise(Effect.flatMap(EventStore, (store) => store.readStream(stream)));
    expect(stored.map((e) => [e.streamRevision, e.metadata["requestId"]])).toEqual(requests.map((requestId, i) => [i, requestId]));
    await runtime.dispose();
  });

  it("runs no command whose caller gave up while it waited for the turn", async () => {
    const storage = makeInMemoryEventStorage();
    const slow = Layer.effect(EventStore)(
      Effect.map(EventStore, (store) => ({
        ...store,
        appendToStream: (...args: Parameters<EventStoreShape["appendToStream"]>) =>
          Effect.sleep("30 millis").pipe(Effect.andThen(store.appendToStream(...args))),
      })),
    ).pipe(Layer.provide(inMemoryEventStoreLayer({ storage })));
    const runtime = ManagedRuntime.make(Layer.mergeAll(slow, lruStreamStateCache(), inProcessStreamLocks));
    const stream = "quota-acc-2027-01";
    const command = (requestId: string) => handleCommand(quotaLedgerStreamType, stream, reserve(requestId), { ...byTest, requestId });
    await runtime.runPromise(
      Effect.gen(function* () {
        const first = yield* Effect.forkChild(command("first"));
        yield* Effect.sleep("5 millis");
        const abandoned = yield* Effect.forkChild(command("abandoned"));
        yield* Effect.sleep("5 millis");
        yield* Fiber.interrupt(abandoned);
        // Queued behind the first while it still holds the turn, as the abandoned one was.
        const after = yield* Effect.forkChild(command("after"));
        yield* Fiber.join(first);
        yield* Fiber.join(after);
      }),
    );
    const stored = await runtime.runPromise(Effect.flatMap(EventStore, (store) => store.readStream(stream)));
    expect(stored.map((e) => e.metadata["requestId"])).toEqual(["first", "after"]);
    await runtime.dispose();
  });
});

describe("events decoded through their stream's Schema", () => {
  const stream = "quota-acc-2026-10";
  const at = "2026-10-14T10:00:00.000Z";
  const attribution = { keyId: "k", operation: "generate", accountId: "acc", period: "2026-10", at };
  /** Appends rows as they are stored, bypassing encoding: as older code, or a hand, wrote them. */
  const storedRaw = (events: ReadonlyArray<{ type: string; data: JsonObject; metadata?: JsonObject }>) => {
    const storage = makeInMemoryEventStorage();
    const runtime = instance(storage, []);
    return {
      runtime,
      append: () => runtime.runPromise(Effect.flatMap(EventStore, (store) => store.appendToStream(stream, events, { expectedRevision: NO_STREAM }))),
    };
  };

  it("loads current state from a version-1 event through its upcaster", async () => {
    const { runtime, append } = storedRaw([
      { type: "QuotaReserved", data: { ...attribution, requestId: "r1", limit: 1, expiresAt: "2026-10-14T10:05:00.000Z" } },
      { type: "QuotaCommitted", data: { requestId: "r1", at } },
      // Written before schema version 2 added `reserved` and version 3 `units` (and before events carried a version at all).
      { type: "QuotaReservationRefused", data: { ...attribution, requestId: "r2", limit: 1, used: 1 } },
    ]);
    await append();
    const { state, revision } = await runtime.runPromise(loadState(quotaLedgerStreamType, stream));
    expect(revision).toBe(2);
    expect(state).toMatchObject({ used: 1, refused: 1, limit: 1 });
    const stored = await runtime.runPromise(Effect.flatMap(EventStore, (store) => store.readStream(stream)));
    // Before documents every reservation held one unit.
    expect(quotaEventCodec.decode(stored[0]!).data).toMatchObject({ requestId: "r1", units: 1 });
    expect(quotaEventCodec.decode(stored[2]!)).toEqual({
      type: "QuotaReservationRefused",
      data: { ...attribution, requestId: "r2", units: 1, limit: 1, used: 1, reserved: null },
    });
  });

  it("reads an idempotency completion stored with the whole body (before issue 24) as well as one with a reference and digest", async () => {
    const started = (attemptId: string) => ({
      type: "IdempotentRequestStarted",
      data: { attemptId, fingerprint: "f", leaseUntil: at, expiresAt: "2026-10-15T10:00:00.000Z", at },
    });
    const inline = { status: 200, body: { success: true, data: { text: "customer's words" } } };
    const reference = { status: 200, bodyRef: "b7c1d2e3-0000-4000-8000-000000000001", bodySha256: "a".repeat(64) };
    for (const response of [inline, reference]) {
      const storage = makeInMemoryEventStorage();
      const runtime = instance(storage, []);
      const events = [started("a1"), { type: "IdempotentRequestCompleted", data: { attemptId: "a1", response, at } }];
      await runtime.runPromise(Effect.flatMap(EventStore, (store) => store.appendToStream("idempotency-acc-k", events, { expectedRevision: NO_STREAM })));
      const { state } = await runtime.runPromise(loadState(idempotencyStreamType, "idempotency-acc-k"));
      expect(state).toEqual({ status: "completed", fingerprint: "f", expiresAt: "2026-10-15T10:00:00.000Z", response });
    }
  });

  it("stamps what it appends with the current schema version and who acted", async () => {
    const { runtime } = storedRaw([]);
    await runtime.runPromise(handleCommand(quotaLedgerStreamType, stream, { ...reserve("r1"), limit: 0 }, { ...byTest, requestId: "req-9" }));
    const [refused] = await runtime.runPromise(Effect.flatMap(EventStore, (store) => store.readStream(stream)));
    expect(refused?.type).toBe("QuotaReservationRefused");
    expect(refused?.data).toMatchObject({ reserved: 0 });
    expect(refused?.metadata).toEqual({ schemaVersion: 3, actor: byTest.actor, requestId: "req-9" });
  });

  it.each([
    ["a field of the wrong type", { type: "QuotaCommitted", data: { requestId: 7, at } }, /does not decode: data.requestId: Expected string/],
    ["an unknown type", { type: "QuotaForgiven", data: { requestId: "r1", at } }, /does not decode/],
    [
      "a version newer than the code",
      { type: "QuotaCommitted", data: { requestId: "r1", at }, metadata: { schemaVersion: 3 } },
      /schema version 3, newer than this code's 1/,
    ],
  ])("refuses %s with a typed error naming stream and revision", async (_, malformed, problem) => {
    const { runtime, append } = storedRaw([{ type: "QuotaReserved", data: { ...attribution, requestId: "r1", limit: 5, expiresAt: at } }, malformed]);
    await append();
    const error = await runtime.runPromise(Effect.flip(loadState(quotaLedgerStreamType, stream)));
    expect(error).toBeInstanceOf(UndecodableEvent);
    expect(error).toMatchObject({ _tag: "UndecodableEvent", streamName: stream, revision: 1, type: malformed.type });
    expect(error.message).toMatch(problem);
    expect(error.message).toContain(`event 1 of stream ${stream}`);
  });
});

/**
 * On a real, shared PostgreSQL store, where appends are slow enough to race: each store instance,
 * with its own cache and locks, stands for one process.
 */
const schema = freshSchemaName("its_test");
afterAll(async () => {
  await dropSchemas([schema]);
});

interface PostgresInstance {
  readonly within: <A, E>(effect: Effect.Effect<A, E, EventStore | StreamStateCache | StreamLocks>) => Effect.Effect<A, E>;
  readonly store: EventStoreShape;
  readonly conflicts: () => number;
}

/** One "process" on the shared schema: its own pool, cache and locks, counting the races it lost. */
const postgresInstance = (): Effect.Effect<PostgresInstance, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const inner = Context.get(yield* Layer.build(postgresEventStoreLayer({ connectionString: postgresUrl, schema, poolSize: 4 })), EventStore);
    let conflicts = 0;
    const store: EventStoreShape = {
      ...inner,
      appendToStream: (...args) =>
        inner.appendToStream(...args).pipe(Effect.tapError((e) => Effect.sync(() => (e._tag === "ConcurrencyConflict" ? conflicts++ : undefined)))),
    };
    const services = yield* Layer.build(Layer.mergeAll(Layer.succeed(EventStore)(store), lruStreamStateCache(), inProcessStreamLocks));
    return {
      within: (effect) => Effect.provideContext(effect, services),
      store,
      conflicts: () => conflicts,
    };
  });

const reserveOf = (limit: number) => ({ ...reserve(randomUUID()), limit, now: new Date(), expiresAt: new Date(Date.now() + 60_000) });
const granted = (handled: { readonly events: ReadonlyArray<{ readonly type: string }> }) => handled.events.some((e) => e.type === "QuotaReserved");
const runScoped = <A>(body: Effect.Effect<A, unknown, Scope.Scope>) => Effect.runPromise(Effect.scoped(body));

describe("command handling on a shared PostgreSQL store", () => {
  it("lets one process's concurrent commands on one stream take turns, without lost races", () =>
    runScoped(
      Effect.gen(function* () {
        const one = yield* postgresInstance();
        const ledger = `quota-${randomUUID()}`;
        const outcomes = yield* Effect.all(
          Array.from({ length: 40 }, () => one.within(handleCommand(quotaLedgerStreamType, ledger, reserveOf(30), byTest))),
          { concurrency: "unbounded" },
        );
        expect(one.conflicts()).toBe(0);
        expect(outcomes.filter(granted)).toHaveLength(30);
        expect((yield* one.store.readStream(ledger)).map((e) => e.streamRevision)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      }),
    ));

  it("keeps the limit exact when two processes race on one ledger", () =>
    runScoped(
      Effect.gen(function* () {
        const processes = [yield* postgresInstance(), yield* postgresInstance()];
        const ledger = `quota-${randomUUID()}`;
        const outcomes = yield* Effect.all(
          processes.flatMap((p) => Array.from({ length: 20 }, () => p.within(handleCommand(quotaLedgerStreamType, ledger, reserveOf(25), byTest)))),
          { concurrency: "unbounded" },
        );
        expect(outcomes.filter(granted)).toHaveLength(25);
        const events = yield* processes[0]!.store.readStream(ledger);
        expect(events.filter((e) => e.type === "QuotaReserved")).toHaveLength(25);
        expect(events.filter((e) => e.type === "QuotaReservationRefused")).toHaveLength(15);
      }),
    ));
});
