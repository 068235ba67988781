import fs from "node:fs";
import path from "node:path";
import { Effect, Layer, ManagedRuntime } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { inProcessEventBusLayer } from "../../src/adapters/event-bus/in-process-event-bus.ts";
import { inMemoryEventStoreLayer } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { cryptoIds } from "../../src/adapters/ids/crypto-ids.ts";
import { readEventFlowLag, watchEventFlowLag } from "../../src/adapters/metrics/event-flow-lag.ts";
import { makeServiceMetrics } from "../../src/adapters/metrics/service-metrics.ts";
import { sqliteProjectionsLayer } from "../../src/adapters/projections/sqlite-projections.ts";
import { openAccount } from "../../src/application/access/accounts.ts";
import { catchUpFromStore } from "../../src/application/event-sourcing/projection-runner.ts";
import { inProcessStreamLocks } from "../../src/application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache } from "../../src/application/event-sourcing/stream-state-cache.ts";
import { systemClock } from "../../src/ports/clock.ts";
import { EventBus } from "../../src/ports/event-bus.ts";
import { EventStore } from "../../src/ports/event-store.ts";
import { KeyProjection, UsageProjection } from "../../src/ports/projections.ts";
import { makeDataDir } from "../support/service-process.ts";

const byTest = { kind: "service", task: "observability test" } as const;

/**
 * The event-flow lag gauges (issues 16, 24), read through the ports from real adapters: the store's
 * head position minus the forwarder's checkpoint on the bus, and minus each projection's position,
 * however far behind (they once counted only the next 1,000 events, of the projection's category).
 */
const dataDir = makeDataDir();
const runtime = ManagedRuntime.make(
  Layer.mergeAll(
    inMemoryEventStoreLayer(),
    inProcessEventBusLayer(),
    sqliteProjectionsLayer({ path: path.join(dataDir, "projections.sqlite") }),
    systemClock,
    cryptoIds,
    lruStreamStateCache(),
    inProcessStreamLocks,
  ),
);
afterAll(async () => {
  await runtime.dispose();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("event-flow lag", () => {
  it("is the store's head minus each checkpoint, and the age of the oldest event waiting", async () => {
    const opened = Date.now();
    await runtime.runPromise(
      Effect.all([
        openAccount({ email: "a@example.com", name: "A", plan: "free" }, byTest),
        openAccount({ email: "b@example.com", name: "B", plan: "pro" }, byTest),
      ]),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));

    const before = await runtime.runPromise(readEventFlowLag);
    // The in-process bus holds no checkpoint until the forwarder has published a page.
    expect(before.forwarder).toBeUndefined();
    const keys = before.projections.find((p) => p.projection === "keys")!;
    expect(keys.events).toBe(2);
    expect(keys.seconds).toBeGreaterThanOrEqual(0.05);
    expect(keys.seconds).toBeLessThan((Date.now() - opened) / 1000 + 0.01);
    // The usage projection takes every notice too (it moves past events of other streams): both wait.
    expect(before.projections.find((p) => p.projection === "usage")?.events).toBe(2);

    await runtime.runPromise(Effect.flatMap(EventBus, (bus) => bus.markPublishedThrough(1)));
    await runtime.runPromise(Effect.flatMap(KeyProjection, catchUpFromStore));
    const after = await runtime.runPromise(readEventFlowLag);
    expect(after.forwarder?.events).toBe(1);
    expect(after.forwarder?.seconds).toBeGreaterThan(0);
    expect(after.projections.find((p) => p.projection === "keys")).toEqual({ projection: "keys", events: 0, seconds: 0 });
    await runtime.runPromise(Effect.flatMap(UsageProjection, catchUpFromStore));

    // The gauges take these values at a scrape.
    const metrics = makeServiceMetrics();
    watchEventFlowLag(metrics, () => runtime.runPromise(readEventFlowLag));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^its_event_forwarder_lag_events 1$/m);
    expect(text).toMatch(/^its_projection_lag_events\{projection="keys"\} 0$/m);
    expect(text).toMatch(/^its_projection_lag_events\{projection="usage"\} 0$/m);
  });

  it("reads every event between a checkpoint and the head, thousands of them, from the positions alone", async () => {
    const metrics = makeServiceMetrics();
    watchEventFlowLag(metrics, () => runtime.runPromise(readEventFlowLag));
    const waiting = 2_500;
    await runtime.runPromise(
      Effect.flatMap(EventStore, (store) =>
        Effect.forEach(
          Array.from({ length: waiting }, (_, i) => i),
          (i) => store.appendToStream(`transformation-lag${i}`, [{ type: "Noted", data: { i } }], { expectedRevision: "any" }),
        ),
      ),
    );
    const head = await runtime.runPromise(Effect.flatMap(EventStore, (store) => store.headPosition));
    const positions = await runtime.runPromise(
      Effect.all([Effect.flatMap(UsageProjection, (p) => p.position), Effect.flatMap(KeyProjection, (p) => p.position)]),
    );
    expect(head - positions[0]).toBe(waiting);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(new RegExp(`^its_projection_lag_events\\{projection="usage"\\} ${head - positions[0]}$`, "m"));
    expect(text).toMatch(new RegExp(`^its_projection_lag_events\\{projection="keys"\\} ${head - positions[1]}$`, "m"));
    expect(text).toMatch(new RegExp(`^its_event_forwarder_lag_events ${head - 1}$`, "m"));
  });
});
