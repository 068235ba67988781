import { Context, type Effect } from "effect";
import type { RatePolicy } from "../domain/plan.ts";
import type { BucketDecision } from "../domain/token-bucket.ts";
import type { DependencyUnavailable } from "./errors.ts";

/** Where token buckets live: one process's memory, or a store shared by several instances. */
export interface RateLimiterShape {
  readonly take: (bucketKey: string, policy: RatePolicy) => Effect.Effect<BucketDecision, DependencyUnavailable>;
  /** What `take` would decide now, taking nothing: a check that costs the bucket no token. */
  readonly peek: (bucketKey: string, policy: RatePolicy) => Effect.Effect<BucketDecision, DependencyUnavailable>;
  /** Hands back a token a take granted, when what it paid for turned out not to count; never past the burst. */
  readonly giveBack: (bucketKey: string, policy: RatePolicy) => Effect.Effect<void, DependencyUnavailable>;
}

export class RateLimiter extends Context.Service<RateLimiter, RateLimiterShape>()("RateLimiter") {}
