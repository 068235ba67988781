import { Effect } from "effect";
import type { RateLimiterShape } from "../../ports/rate-limiter.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** The bucket's kind, from the prefix the application gives its keys; the rest (a key id, an address) never becomes a label. */
const bucketLabel = (bucketKey: string): string =>
  bucketKey.startsWith("key:") ? "api_key" : bucketKey.startsWith("auth-failures:") ? "failed_auth" : "other";

/** Counts every refusal a token bucket hands out. */
export const meteredRateLimiter =
  (metrics: ServiceMetrics) =>
  (limiter: RateLimiterShape): RateLimiterShape => ({
    ...limiter,
    take: (bucketKey, policy) =>
      limiter.take(bucketKey, policy).pipe(
        Effect.tap((decision) =>
          Effect.sync(() => {
            if (!decision.allowed) metrics.rateLimitRefusals.inc({ bucket: bucketLabel(bucketKey) });
          }),
        ),
      ),
  });
