import { Deferred, Effect, Fiber } from "effect";
import { describe, expect, it } from "vitest";
import { makeInMemoryEventStore } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { meteredImageEngine } from "../../src/adapters/metrics/metered-engines.ts";
import { meteredEventStore } from "../../src/adapters/metrics/metered-event-store.ts";
import { makeServiceMetrics } from "../../src/adapters/metrics/service-metrics.ts";
import type { ImageEngineShape } from "../../src/ports/image-engine.ts";

/**
 * Issue 16: the metrics the end-to-end scrape cannot make move on one quiet instance: conflicts
 * (another writer was first) and the queue depth while jobs wait for a slot.
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
