import { Context, type Effect } from "effect";
import type { RatePolicy } from "../domain/plan.ts";
import type { BucketDecision } from "../domain/token-bucket.ts";
import type { DependencyUnavailable } from "./errors.ts";

/**
 * Where token buckets live: one process's memory, or a store shared by several instances.
 * Every adapter keeps these rules (test/contract/support/rate-limiter-contract.ts checks them):
 * the bucket is `takeToken`'s (domain/token-bucket.ts) — the burst granted with a falling
 * remaining count, then a refusal with its retry delay, refilled at the policy's rate by the Clock
 * port's time — and it is one bucket per key across every instance and concurrent request: no
 * token is granted twice, none given back is lost, a give-back never fills past the burst. Keys
 * hold any characters and stay apart. A store that cannot be reached is DependencyUnavailable.
 */
export interface RateLimiterShape {
  readonly take: (bucketKey: string, policy: RatePolicy) => Effect.Effect<BucketDecision, DependencyUnavailable>;
  /** What `take` would decide now, taking nothing: a check that costs the bucket no token. */
  readonly peek: (bucketKey: string, policy: RatePolicy) => Effect.Effect<BucketDecision, DependencyUnavailable>;
  /** Hands back a token a take granted, when what it paid for turned out not to count; never past the burst. */
  readonly giveBack: (bucketKey: string, policy: RatePolicy) => Effect.Effect<void, DependencyUnavailable>;
}

export class RateLimiter extends Context.Service<RateLimiter, RateLimiterShape>()("RateLimiter") {}
