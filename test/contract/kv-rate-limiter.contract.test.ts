import { Effect, Layer } from "effect";
import { kvRateLimiterLayer } from "../../src/adapters/nats/kv-rate-limiter.ts";
import { natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import type { Clock } from "../../src/ports/clock.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { instanceOf, rateLimiterContract } from "./support/rate-limiter-contract.ts";
import { skipUnlessServerAnswers } from "./support/server-answers.ts";

rateLimiterContract({
  name: "nats-kv",
  skip: await skipUnlessServerAnswers("NATS", NATS_URL, 4222),
  storage: Effect.acquireRelease(Effect.sync(testNamespace), (namespace) => Effect.promise(() => dropNatsNamespace(namespace))).pipe(
    Effect.map((namespace) => ({
      open: (clock: Layer.Layer<Clock>) =>
        instanceOf(kvRateLimiterLayer({ namespace }).pipe(Layer.provide(Layer.merge(natsConnectionLayer({ servers: NATS_URL }), clock)))),
    })),
  ),
});
