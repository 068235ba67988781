import { randomUUID } from "node:crypto";
import { Context, Effect, Layer, ManagedRuntime, type Scope } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { inMemoryEventStoreLayer, makeInMemoryEventStorage } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { handleCommand, loadState } from "../../src/application/command-handler.ts";
import { inProcessStreamLocks, type StreamLocks } from "../../src/application/stream-locks.ts";
import { lruStreamStateCache, type StreamStateCache } from "../../src/application/stream-state-cache.ts";
import { quotaLedgerDecider } from "../../src/domain/quota-ledger.ts";
import { EventStore, type EventStoreShape } from "../../src/ports/event-store.ts";
import { postgresUrl, freshSchemaName, dropSchemas } from "../support/postgres.ts";

const now = new Date("2026-11-22T10:00:00Z");
const reserve = (requestId: string) => ({
  type: "ReserveQuota" as const,
  requestId,
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

    await run(a, handleCommand(quotaLedgerDecider, stream, reserve("r1")));
    await run(b, handleCommand(quotaLedgerDecider, stream, reserve("r2")));
    const reserved = await run(a, handleCommand(quotaLedgerDecider, stream, reserve("r3")));
    expect(reserved.events.map((e) => e.type)).toEqual(["QuotaReserved"]);
    expect(readsA).toEqual([0, 1]);

    // The limit is 3 and r1, r2 (by the other instance) and r3 hold it: A must refuse, not overshoot.
    const fourth = await run(a, handleCommand(quotaLedgerDecider, stream, reserve("r4")));
    expect(fourth.events.map((e) => e.type)).toEqual(["QuotaReservationRefused"]);
    const { state, revision } = await run(b, loadState(quotaLedgerDecider, stream));
    expect(revision).toBe(3);
    expect(state.reservations.size).toBe(3);
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
          Array.from({ length: 40 }, () => one.within(handleCommand(quotaLedgerDecider, ledger, reserveOf(30)))),
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
          processes.flatMap((p) => Array.from({ length: 20 }, () => p.within(handleCommand(quotaLedgerDecider, ledger, reserveOf(25))))),
          { concurrency: "unbounded" },
        );
        expect(outcomes.filter(granted)).toHaveLength(25);
        const events = yield* processes[0]!.store.readStream(ledger);
        expect(events.filter((e) => e.type === "QuotaReserved")).toHaveLength(25);
        expect(events.filter((e) => e.type === "QuotaReservationRefused")).toHaveLength(15);
      }),
    ));
});
