import { Effect } from "effect";
import { inProcessEventBusLayer } from "../../src/adapters/event-bus/in-process-event-bus.ts";
import { eventBusContract, instanceOf } from "./support/event-bus-contract.ts";

eventBusContract({
  name: "in-process",
  bus: Effect.gen(function* () {
    const instance = yield* instanceOf(inProcessEventBusLayer({ redeliveryDelay: "20 millis" }));
    return { open: Effect.succeed(instance) };
  }),
});
