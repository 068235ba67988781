import { Effect, Layer, ManagedRuntime } from "effect";
import { describe, expect, it } from "vitest";
import { inMemoryEventStoreLayer, makeInMemoryEventStorage } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { handleCommand, loadState } from "../../src/application/command-handler.ts";
import { lruStreamStateCache, type StreamStateCache } from "../../src/application/stream-state-cache.ts";
import { quotaLedgerDecider } from "../../src/domain/quota-ledger.ts";
import { EventStore } from "../../src/ports/event-store.ts";

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
  return ManagedRuntime.make(Layer.mergeAll(counting, lruStreamStateCache()));
};

describe("command handling with cached stream state", () => {
  it("reads only the events after the cached revision, and still sees other writers' events", async () => {
    const storage = makeInMemoryEventStorage();
    const readsA: Array<number | undefined> = [];
    const a = instance(storage, readsA);
    const b = instance(storage, []);
    const stream = "quota-acc-2026-11";
    const run = <A, E>(runtime: typeof a, effect: Effect.Effect<A, E, EventStore | StreamStateCache>) => runtime.runPromise(effect);

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
