import { jetstreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { connect } from "@nats-io/transport-node";
import { Effect, Layer } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import { natsNames } from "../../src/adapters/nats/nats-names.ts";
import { natsObjectResultStoreLayer } from "../../src/adapters/results/nats-object-result-store.ts";
import { loadConfig } from "../../src/config.ts";
import { ResultStore } from "../../src/ports/result-store.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";

/**
 * The result bucket outlives deployments (NATS keeps its state): one made earlier, with another
 * RESULT_TTL_SECONDS, takes the configured age limit when a service opens it, and keeps its results.
 */
const namespace = testNamespace();
afterAll(() => dropNatsNamespace(namespace));

const maxAgeSeconds = async () => {
  const nc = await connect({ servers: NATS_URL });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(`OBJ_${natsNames(namespace).resultBucket}`);
    return info.config.max_age / 1e9;
  } finally {
    await nc.close();
  }
};

describe("the NATS result bucket", () => {
  it("takes the configured age limit (TTL + 5 min) also when an earlier deployment made it with another", async () => {
    const nc = await connect({ servers: NATS_URL });
    const earlier = await new Objm(nc).create(natsNames(namespace).resultBucket, { ttl: 60 * 1e9 });
    await earlier.putBlob(
      { name: "result-made-earlier", metadata: { "content-type": "image/png", "expires-at": "2999-01-01T00:00:00.000Z" } },
      new Uint8Array([7]),
    );
    await nc.close();
    expect(await maxAgeSeconds()).toBe(60);

    const found = await Effect.runPromise(
      Effect.gen(function* () {
        return yield* (yield* ResultStore).get("result-made-earlier", new Date());
      }).pipe(Effect.provide(natsObjectResultStoreLayer({ namespace, ttlSeconds: 7200 }).pipe(Layer.provide(natsConnectionLayer({ servers: NATS_URL }))))),
    );
    expect(await maxAgeSeconds()).toBe(7200 + 300);
    expect(found._tag).toBe("Some");
  });

  it("is configured to keep idempotent responses their 24 hours, also where results live shorter (RESULT_TTL_SECONDS)", () => {
    const ageLimit = (resultTtl: string) => loadConfig({ RESULT_STORE: "nats", NATS_URL, RESULT_TTL_SECONDS: resultTtl }, 2).resultStore;
    expect(ageLimit("600")).toEqual({ kind: "nats", namespace: expect.any(String), ttlSeconds: 86_400 });
    expect(ageLimit("172800")).toMatchObject({ ttlSeconds: 172_800 });
  });
});
