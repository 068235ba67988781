import { Effect } from "effect";
import type { PlanId, RatePolicy } from "../domain/plan.ts";
import type { BucketDecision } from "../domain/token-bucket.ts";
import { RateLimiter } from "../ports/rate-limiter.ts";
import { RateLimited } from "./errors.ts";
import { ratePolicyOf, ServiceSettings } from "./settings.ts";

/** Failed authentication is throttled per client address so guessing keys stays slow and cheap. */
export const FAILED_AUTH_POLICY: RatePolicy = { burst: 20, perMinute: 20 };

export interface RateCheck {
  readonly policy: RatePolicy;
  readonly decision: BucketDecision;
}

/** Takes one token from the key's bucket; RateLimited (with the decision, for headers) if empty. */
export const takeKeyToken = (keyId: string, plan: PlanId) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter;
    const policy = ratePolicyOf(yield* ServiceSettings, plan);
    const decision = yield* limiter.take(`key:${keyId}`, policy);
    return { policy, decision } satisfies RateCheck;
  });

/** Fails with RateLimited, taking nothing, when the client address has used up its failed attempts. */
export const refuseThrottledAddress = (clientAddress: string) =>
  Effect.gen(function* () {
    const decision = yield* (yield* RateLimiter).peek(`auth-failures:${clientAddress}`, FAILED_AUTH_POLICY);
    if (!decision.allowed) return yield* new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds });
  });

/** Counts one failed authentication against the client address. */
export const recordFailedAuth = (clientAddress: string) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter;
    const decision = yield* limiter.take(`auth-failures:${clientAddress}`, FAILED_AUTH_POLICY);
    return decision;
  });
