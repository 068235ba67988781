import { Effect, Layer } from "effect";
import { inMemoryRateLimiterLayer } from "../../src/adapters/rate-limit/in-memory-rate-limiter.ts";
import type { BucketState } from "../../src/domain/token-bucket.ts";
import { instanceOf, rateLimiterContract } from "./support/rate-limiter-contract.ts";

rateLimiterContract({
  name: "in-memory",
  storage: Effect.sync(() => {
    const buckets = new Map<string, BucketState>();
    return { open: (clock) => instanceOf(inMemoryRateLimiterLayer({ buckets }).pipe(Layer.provide(clock))) };
  }),
});
