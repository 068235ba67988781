import { Layer } from "effect";
import { afterAll } from "vitest";
import { natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import { natsObjectResultStoreLayer } from "../../src/adapters/results/nats-object-result-store.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { resultStoreContract } from "./support/result-store-contract.ts";
import { skipUnlessServerAnswers } from "./support/server-answers.ts";

const namespaces: Array<string> = [];
afterAll(async () => {
  for (const namespace of namespaces) await dropNatsNamespace(namespace);
});

resultStoreContract(
  "nats object store",
  async () => {
    const namespace = testNamespace();
    namespaces.push(namespace);
    return natsObjectResultStoreLayer({ namespace, ttlSeconds: 3600 }).pipe(Layer.provide(natsConnectionLayer({ servers: NATS_URL })));
  },
  await skipUnlessServerAnswers("NATS", NATS_URL, 4222),
);
