import { Effect } from "effect";
import type { RatePolicy } from "../../domain/plan.ts";
import type { BucketDecision } from "../../domain/token-bucket.ts";
import { RateLimiter } from "../../ports/rate-limiter.ts";
import { RateLimited } from "../errors.ts";

/** Failed authentication is throttled per client address so guessing keys stays slow and cheap. */
export const FAILED_AUTH_POLICY: RatePolicy = { burst: 20, perMinute: 20 };

export interface RateCheck {
  readonly policy: RatePolicy;
  readonly decision: BucketDecision;
}

/** The bucket of a key's requests, and that of an address's failed authentications. */
export const keyBucket = (keyId: string) => `key:${keyId}`;
export const failedAuthBucket = (clientAddress: string) => `auth-failures:${clientAddress}`;

/** Fails with RateLimited, taking nothing, when the client address has used up its failed attempts. */
export const refuseThrottledAddress = (clientAddress: string) =>
  Effect.gen(function* () {
    const decision = yield* (yield* RateLimiter).peek(failedAuthBucket(clientAddress), FAILED_AUTH_POLICY);
    if (!decision.allowed) return yield* new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds });
  });

/** Counts one failed authentication against the client address. */
export const recordFailedAuth = (clientAddress: string) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter;
    const decision = yield* limiter.take(failedAuthBucket(clientAddress), FAILED_AUTH_POLICY);
    return decision;
  });
