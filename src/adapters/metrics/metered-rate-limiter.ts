import { Effect } from "effect";
import type { BucketDecision } from "../../domain/token-bucket.ts";
import type { RateLimiterShape } from "../../ports/rate-limiter.ts";
import { RATE_LIMIT_BUCKETS } from "./rate-limit-buckets.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** Counts every refusal a token bucket hands out. */
export const meteredRateLimiter =
  (metrics: ServiceMetrics) =>
  (limiter: RateLimiterShape): RateLimiterShape => {
    const counted =
      (call: "take" | "peek") =>
      (bucketKey: string, decision: BucketDecision): void => {
        const bucket = RATE_LIMIT_BUCKETS.find((candidate) => bucketKey.startsWith(candidate.prefix));
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
