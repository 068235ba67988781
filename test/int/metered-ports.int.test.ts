import { Deferred, Effect, Fiber } from "effect";
import { describe, expect, it } from "vitest";
import { makeInMemoryEventStore } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { meteredImageEngine } from "../../src/adapters/metrics/metered-engines.ts";
import { meteredEventStore } from "../../src/adapters/metrics/metered-event-store.ts";
import { meteredRateLimiter } from "../../src/adapters/metrics/metered-rate-limiter.ts";
import { makeServiceMetrics } from "../../src/adapters/metrics/service-metrics.ts";
import { inMemoryRateLimiterLayer } from "../../src/adapters/rate-limit/in-memory-rate-limiter.ts";
import { systemClock } from "../../src/ports/clock.ts";
import type { ImageEngineShape } from "../../src/ports/engines/image-engine.ts";
import { RateLimiter } from "../../src/ports/rate-limiter.ts";

/**
 * Issue 16: the metrics the end-to-end scrape cannot make move on one quiet instance: conflicts
 * (another writer was first), the queue depth while jobs wait for a slot, and refusals by the
 * failed-authentication and console sign-in buckets (which would throttle the test's own address).
 */
const valueOf = async (
  metric: { get: () => Promise<{ values: ReadonlyArray<{ value: number; labels: object; metricName?: string }> }> },
  labels: object = {},
  name?: string,
) =>
  (await metric.get()).values.find(
    (entry) =>
      (name === undefined || entry.metricName === name) &&
      Object.entries(labels).every(([key, value]) => (entry.labels as Record<string, unknown>)[key] === value),
  )?.value ?? 0;

describe("metered event store", () => {
  it("times appends by outcome and counts a lost race as a conflict", async () => {
    const metrics = makeServiceMetrics();
    const store = meteredEventStore(metrics)(makeInMemoryEventStore());
    const event = { type: "Noted", data: {} };
    await Effect.runPromise(store.appendToStream("s-1", [event], { expectedRevision: -1 }));
    // Another writer's append moved the stream on: this one expected it still empty.
    const lost = await Effect.runPromise(Effect.flip(store.appendToStream("s-1", [event], { expectedRevision: -1 })));
    expect(lost._tag).toBe("ConcurrencyConflict");

    expect(await valueOf(metrics.eventStoreConflicts)).toBe(1);
    expect(await valueOf(metrics.eventStoreAppendDuration, { outcome: "ok" }, "its_event_store_append_duration_seconds_count")).toBe(1);
    expect(await valueOf(metrics.eventStoreAppendDuration, { outcome: "conflict" }, "its_event_store_append_duration_seconds_count")).toBe(1);
  });
});

describe("metered engine", () => {
  it("reports jobs beyond the engine's slots as queue depth while they wait, and 0 once they are done", async () => {
    const metrics = makeServiceMetrics();
    const release = await Effect.runPromise(Deferred.make<void>());
    const engine = { render: () => Deferred.await(release).pipe(Effect.as({})) } as unknown as ImageEngineShape;
    const metered = meteredImageEngine(metrics, 1)(engine);
    const jobs = Effect.runFork(
      Effect.all(
        [1, 2, 3].map(() => metered.render({} as never, {} as never)),
        { concurrency: "unbounded" },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await valueOf(metrics.engineCapacity, { engine: "image" })).toBe(1);
    expect(await valueOf(metrics.engineInFlight, { engine: "image" })).toBe(3);
    expect(await valueOf(metrics.engineQueueDepth, { engine: "image" })).toBe(2);

    await Effect.runPromise(Deferred.succeed(release, undefined));
    await Effect.runPromise(Fiber.join(jobs));
    expect(await valueOf(metrics.engineQueueDepth, { engine: "image" })).toBe(0);
    expect(await valueOf(metrics.engineDuration, { engine: "image", outcome: "ok" }, "its_engine_job_duration_seconds_count")).toBe(3);
  });
});

describe("metered rate limiter", () => {
  const policy = { burst: 1, perMinute: 1 };
  const limiterWithMetrics = async () => {
    const metrics = makeServiceMetrics();
    const limiter = await Effect.runPromise(Effect.service(RateLimiter).pipe(Effect.provide(inMemoryRateLimiterLayer()), Effect.provide(systemClock)));
    return { metrics, limiter: meteredRateLimiter(metrics)(limiter) };
  };

  it("counts each 429 a bucket causes once, under its kind, never its key", async () => {
    const { metrics, limiter } = await limiterWithMetrics();
    const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(effect);
    // A key's bucket refuses when its token is taken.
    await run(limiter.take("key:abc", policy));
    expect((await run(limiter.take("key:abc", policy))).allowed).toBe(false);
    // Failed authentication: a throttled address is refused at the peek (unknown key) or at the take (known key, wrong secret).
    await run(limiter.take("auth-failures:10.0.0.1", policy));
    expect((await run(limiter.peek("auth-failures:10.0.0.1", policy))).allowed).toBe(false);
    expect((await run(limiter.take("auth-failures:10.0.0.1", policy))).allowed).toBe(false);
    // Console sign-in: refused when the token a password check costs is taken; peeks are not the console's.
    await run(limiter.take("console-sign-in:email:a@example.com", policy));
    expect((await run(limiter.peek("console-sign-in:email:a@example.com", policy))).allowed).toBe(false);
    expect((await run(limiter.take("console-sign-in:email:a@example.com", policy))).allowed).toBe(false);

    expect(await valueOf(metrics.rateLimitRefusals, { bucket: "api_key" })).toBe(1);
    expect(await valueOf(metrics.rateLimitRefusals, { bucket: "failed_auth" })).toBe(2);
    expect(await valueOf(metrics.rateLimitRefusals, { bucket: "console_sign_in" })).toBe(1);
    const labels = (await metrics.rateLimitRefusals.get()).values.map((entry) => JSON.stringify(entry.labels));
    expect(labels.filter((label) => /abc|10\.0\.0\.1|example/.test(label))).toEqual([]);
  });
});
