import { Effect, Layer } from "effect";
import { jetStreamEventBusLayer } from "../../src/adapters/nats/jetstream-event-bus.ts";
import { natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { eventBusContract, instanceOf } from "./support/event-bus-contract.ts";
import { skipUnlessServerAnswers } from "./support/server-answers.ts";

eventBusContract({
  name: "jetstream",
  skip: await skipUnlessServerAnswers("NATS", NATS_URL, 4222),
  bus: Effect.acquireRelease(Effect.sync(testNamespace), (namespace) => Effect.promise(() => dropNatsNamespace(namespace))).pipe(
    Effect.map((namespace) => ({
      open: instanceOf(
        jetStreamEventBusLayer({ namespace, storeIdentity: "contract-store", ackWaitMs: 2_000, redeliveryDelayMs: 20 }).pipe(
          Layer.provide(natsConnectionLayer({ servers: NATS_URL })),
        ),
      ),
    })),
  ),
});
