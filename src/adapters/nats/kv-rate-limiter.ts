import { Effect, Layer } from "effect";
import type { RatePolicy } from "../../domain/plan.ts";
import { type BucketState, returnToken, takeToken } from "../../domain/token-bucket.ts";
import { Clock } from "../../ports/clock.ts";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { RateLimiter } from "../../ports/rate-limiter.ts";
import { compareAndSwap } from "./kv-compare-and-swap.ts";
import { NatsClient } from "./nats-connection.ts";
import { natsNames } from "./nats-names.ts";

export interface KvRateLimiterOptions {
  readonly namespace: string;
  /**
   * A bucket untouched this long is removed, and counts as full when next used: keep it longer
   * than any policy takes to refill from empty (its burst over its rate per minute: PLANS, src/domain/plan.ts).
   */
  readonly idleTtlMs?: number;
}

/** KV keys allow [-/_=.A-Za-z0-9]; bucket keys hold ':' and IPv6 addresses. */
const kvKey = (bucketKey: string) => Buffer.from(bucketKey).toString("base64url");

/**
 * Token buckets in a JetStream KV bucket, shared by every instance on the same NATS: each take
 * reads the bucket, applies the pure token-bucket arithmetic and writes back with compare-and-swap,
 * retrying when another instance wrote first. A refusal writes nothing (the refill is a function
 * of the stored state and the time), so a flood of refused requests costs one read each.
 */
export const kvRateLimiterLayer = (options: KvRateLimiterOptions) =>
  Layer.effect(RateLimiter)(
    Effect.gen(function* () {
      const nats = yield* NatsClient;
      const clock = yield* Clock;
      const bucket = yield* Effect.tryPromise({
        try: () => nats.kv.create(natsNames(options.namespace).rateLimitBucket, { history: 1, ttl: options.idleTtlMs ?? 24 * 60 * 60_000 }),
        catch: (cause) => new DependencyUnavailable({ dependency: "nats: rate-limit bucket", cause }),
      });
      const stateOf = (current: string | undefined) => (current === undefined ? undefined : (JSON.parse(current) as BucketState));
      const decide = (current: string | undefined, policy: RatePolicy) => takeToken(stateOf(current), policy, clock.now().getTime());
      const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: "nats: rate limiter", cause });
      return {
        take: (bucketKey, policy) =>
          Effect.tryPromise({
            try: () =>
              compareAndSwap(bucket, kvKey(bucketKey), (current) => {
                const decision = decide(current, policy);
                return { write: decision.allowed ? JSON.stringify(decision.state) : undefined, result: decision };
              }),
            catch: unavailable,
          }),
        peek: (bucketKey, policy) =>
          Effect.tryPromise({
            try: () => compareAndSwap(bucket, kvKey(bucketKey), (current) => ({ write: undefined, result: decide(current, policy) })),
            catch: unavailable,
          }),
        giveBack: (bucketKey, policy) =>
          Effect.tryPromise({
            try: () =>
              compareAndSwap(bucket, kvKey(bucketKey), (current) => ({
                write: JSON.stringify(returnToken(stateOf(current), policy, clock.now().getTime())),
                result: undefined,
              })),
            catch: unavailable,
          }),
      };
    }),
  );
