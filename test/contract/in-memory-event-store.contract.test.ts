import { Effect } from "effect";
import { inMemoryEventStoreLayer, makeInMemoryEventStorage } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { eventStoreContract, instanceOf } from "./support/event-store-contract.ts";

eventStoreContract({
  name: "in-memory",
  storage: Effect.sync(() => {
    const storage = makeInMemoryEventStorage();
    return { open: instanceOf(inMemoryEventStoreLayer({ storage, pollInterval: "10 millis" })) };
  }),
});
