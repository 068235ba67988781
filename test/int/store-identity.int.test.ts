import { Effect, Layer } from "effect";
import { describe, expect, it } from "vitest";
import { inMemoryEventStoreLayer } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { cryptoIds } from "../../src/adapters/ids/crypto-ids.ts";
import { actorOf } from "../../src/application/access/actor.ts";
import { STORE_IDENTITY_STREAM, storeIdentity } from "../../src/application/event-sourcing/store-identity.ts";
import { systemClock } from "../../src/ports/clock.ts";
import { EventStore } from "../../src/ports/event-store.ts";

describe("the store's identity", () => {
  it("is recorded once, by the service, like every event saying who acted", async () => {
    const [first, second, events] = await Effect.runPromise(
      Effect.gen(function* () {
        const first = yield* storeIdentity;
        const second = yield* storeIdentity;
        return [first, second, yield* (yield* EventStore).readStream(STORE_IDENTITY_STREAM)] as const;
      }).pipe(Effect.provide(Layer.mergeAll(inMemoryEventStoreLayer(), cryptoIds, systemClock))),
    );
    expect(second).toBe(first);
    expect(events).toHaveLength(1);
    expect(actorOf(events[0]!.metadata)).toEqual({ kind: "service", task: "store identity" });
  });
});
