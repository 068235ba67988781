import { Effect, Layer } from "effect";
import { type BucketState, returnToken, takeToken } from "../../domain/token-bucket.ts";
import { Clock } from "../../ports/clock.ts";
import { RateLimiter } from "../../ports/rate-limiter.ts";

/**
 * Buckets in this process's memory: right for one instance. Full buckets are dropped by a sweep
 * so the map holds only keys seen in the last few minutes. Tests may pass `buckets` to have
 * several limiters share one map, as instances would share a store.
 */
export const inMemoryRateLimiterLayer = (options: { readonly buckets?: Map<string, BucketState> } = {}) =>
  Layer.effect(RateLimiter)(
    Effect.gen(function* () {
      const clock = yield* Clock;
      const buckets = options.buckets ?? new Map<string, BucketState>();
      const SWEEP_EVERY = 10_000;
      let takes = 0;
      const sweep = (nowMs: number) => {
        for (const [key, state] of buckets) if (nowMs - state.updatedAtMs > 10 * 60_000) buckets.delete(key);
      };
      return {
        take: (bucketKey, policy) =>
          Effect.sync(() => {
            const nowMs = clock.now().getTime();
            if (++takes % SWEEP_EVERY === 0) sweep(nowMs);
            const decision = takeToken(buckets.get(bucketKey), policy, nowMs);
            buckets.set(bucketKey, decision.state);
            return decision;
          }),
        peek: (bucketKey, policy) => Effect.sync(() => takeToken(buckets.get(bucketKey), policy, clock.now().getTime())),
        giveBack: (bucketKey, policy) =>
          Effect.sync(() => {
            buckets.set(bucketKey, returnToken(buckets.get(bucketKey), policy, clock.now().getTime()));
          }),
      };
    }),
  );

export const inMemoryRateLimiter = inMemoryRateLimiterLayer();
