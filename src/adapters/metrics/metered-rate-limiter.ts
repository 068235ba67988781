import { Effect } from "effect";
import type { BucketDecision } from "../../domain/token-bucket.ts";
import type { RateLimiterShape } from "../../ports/rate-limiter.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/**
 * The buckets the application keeps, by key prefix, and which of its calls turn the bucket's "no"
 * into a 429: a key's bucket when its token is taken; the failed-authentication bucket both when
 * it is peeked at (an unknown key from a throttled address) and when a failure is taken from it;
 * the console's sign-in buckets when the token a password check costs is taken.
 * The rest of the bucket key (a key id, an address, an email) never becomes a label.
 */
const BUCKETS = [
  { prefix: "key:", label: "api_key", refusesAt: ["take"] },
  { prefix: "auth-failures:", label: "failed_auth", refusesAt: ["take", "peek"] },
  { prefix: "console-sign-in:", label: "console_sign_in", refusesAt: ["take"] },
] as const;

export const RATE_LIMIT_BUCKET_LABELS = BUCKETS.map((bucket) => bucket.label);

/** Counts every refusal a token bucket hands out. */
export const meteredRateLimiter =
  (metrics: ServiceMetrics) =>
  (limiter: RateLimiterShape): RateLimiterShape => {
    const counted =
      (call: "take" | "peek") =>
      (bucketKey: string, decision: BucketDecision): void => {
        const bucket = BUCKETS.find((candidate) => bucketKey.startsWith(candidate.prefix));
        if (!decision.allowed && bucket !== undefined && (bucket.refusesAt as ReadonlyArray<string>).includes(call)) {
          metrics.rateLimitRefusals.inc({ bucket: bucket.label });
        }
      };
    const countTake = counted("take");
    const countPeek = counted("peek");
    return {
      take: (bucketKey, policy) => limiter.take(bucketKey, policy).pipe(Effect.tap((decision) => Effect.sync(() => countTake(bucketKey, decision)))),
      peek: (bucketKey, policy) => limiter.peek(bucketKey, policy).pipe(Effect.tap((decision) => Effect.sync(() => countPeek(bucketKey, decision)))),
      giveBack: limiter.giveBack,
    };
  };
