import { Effect, Exit, Fiber, Layer } from "effect";
import { describe, expect, it } from "vitest";
import { makeEngineCapacity } from "../../src/adapters/engine-capacity.ts";
import { inMemoryEventStoreLayer } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { cryptoIds } from "../../src/adapters/ids/crypto-ids.ts";
import type { Principal } from "../../src/application/access/authenticate.ts";
import { inProcessStreamLocks } from "../../src/application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache } from "../../src/application/event-sourcing/stream-state-cache.ts";
import { defaultServiceSettings, ServiceSettings } from "../../src/application/settings.ts";
import { runTransformation } from "../../src/application/transformations/run-transformation.ts";
import { UNRESTRICTED } from "../../src/domain/key-restrictions.ts";
import { systemClock } from "../../src/ports/clock.ts";
import { EventStore } from "../../src/ports/event-store.ts";

/**
 * When a request's deadline passes or its client leaves (its fiber is interrupted), its engine work
 * still waiting for a slot never starts, while the quota it reserved is released: reserve and
 * commit/release pair up whatever happens to the work in between. Work already inside an engine
 * runs to its end in its slot (native work cannot be stopped midway; engine-capacity.ts), and its
 * result is dropped.
 */
const principal: Principal = {
  key: { keyId: "k1", name: "default", prefix: "its_k1", secretHash: "", createdAt: "2026-11-01T00:00:00.000Z", restrictions: UNRESTRICTED },
  account: { accountId: "acc-cancel", email: "a@example.com", name: "", plan: "pro" },
};

const services = () =>
  Layer.mergeAll(
    inMemoryEventStoreLayer(),
    cryptoIds,
    systemClock,
    lruStreamStateCache(),
    inProcessStreamLocks,
    Layer.succeed(ServiceSettings)(defaultServiceSettings),
  );

/** Engine work of `ms` behind one slot with a deadline; records what started and what ran to its end. */
const engine = (deadlineMs: number) => {
  const capacity = makeEngineCapacity({ concurrency: 1, deadlineMs });
  const started: Array<string> = [];
  const finished: Array<string> = [];
  const work = (name: string, ms: number) =>
    capacity.run(
      Effect.gen(function* () {
        started.push(name);
        yield* Effect.sleep(ms);
        finished.push(name);
        return { value: name, output: {} };
      }),
    );
  return { capacity, work, started, finished };
};

const quotaEvents = Effect.gen(function* () {
  const store = yield* EventStore;
  const page = yield* store.readAll({ after: 0, limit: 1_000 });
  return page.filter((event) => event.streamName.startsWith("quota-")).map((event) => ({ type: event.type, data: event.data }));
});

const reasonsOf = (events: ReadonlyArray<{ type: string; data: Record<string, unknown> }>) =>
  events.filter((event) => event.type === "QuotaReleased").map((event) => event.data["reason"]);

describe("a transformation whose deadline passes or whose client leaves", () => {
  it("drops the work still waiting for the engine, fails with EngineTimeout and releases every reservation", async () => {
    const { work, started } = engine(150);
    const { exits, events } = await Effect.runPromise(
      Effect.gen(function* () {
        // One slot: the first job runs past the deadline, the second waits for the slot until its deadline passes too.
        const fibers = yield* Effect.forEach(["slow", "waiting"], (name) =>
          Effect.forkChild(Effect.exit(runTransformation({ principal, feature: "generate" }, {}, work(name, 400)))),
        );
        const exits = yield* Effect.forEach(fibers, Fiber.join);
        return { exits, events: yield* quotaEvents };
      }).pipe(Effect.provide(services())),
    );
    for (const exit of exits) expect(Exit.isFailure(exit) && exit.cause.reasons[0]).toMatchObject({ _tag: "Fail", error: { _tag: "EngineTimeout" } });
    // The waiting job never ran: its deadline cancelled it before it took a slot.
    expect(started).toEqual(["slow"]);
    expect(events.filter((event) => event.type === "QuotaReserved")).toHaveLength(2);
    expect(reasonsOf(events)).toEqual(["EngineTimeout", "EngineTimeout"]);
    expect(events.some((event) => event.type === "QuotaCommitted")).toBe(false);
  });

  it("drops the waiting work of clients that left, lets running work end in its slot, and releases what each reserved", async () => {
    const { capacity, work, started, finished } = engine(10_000);
    const events = await Effect.runPromise(
      Effect.gen(function* () {
        const fibers = yield* Effect.forEach(["running", "waiting"], (name) =>
          Effect.forkChild(runTransformation({ principal, feature: "generate" }, {}, work(name, 300))),
        );
        // A job counts as queued before its fiber has asked for the slot: wait until one holds it and the other waits.
        while (capacity.load().running < 1 || capacity.load().queued < 1) yield* Effect.sleep(5);
        // The clients leave: the HTTP adapter interrupts their fibers (effect-runner.ts).
        yield* Effect.forEach(fibers, Fiber.interrupt);
        const events = yield* quotaEvents;
        // Both released at once; the running job keeps its slot until it really ends, then the slot is free.
        expect(capacity.load()).toEqual({ running: 1, queued: 0 });
        while (capacity.load().running > 0) yield* Effect.sleep(5);
        return events;
      }).pipe(Effect.provide(services())),
    );
    expect(started).toEqual(["running"]);
    expect(finished).toEqual(["running"]);
    expect(events.filter((event) => event.type === "QuotaReserved")).toHaveLength(2);
    expect(reasonsOf(events)).toEqual(["Interrupted", "Interrupted"]);
  });
});
