import { Effect, Exit, Fiber, Layer } from "effect";
import { describe, expect, it } from "vitest";
import { type EngineCapacity, makeEngineCapacity } from "../../src/adapters/engine-capacity.ts";
import { boundedImageEngineLayer } from "../../src/adapters/image/bounded-image-engine.ts";
import { TEMPLATES } from "../../src/domain/template-catalog/template-catalog.ts";
import { EngineTenant } from "../../src/ports/engines/engine-tenant.ts";
import { ImageEngine } from "../../src/ports/engines/image-engine.ts";

/** A job that takes `ms` of wall time and records how many ran at once. */
const probe = () => {
  let running = 0;
  let peak = 0;
  const started: Array<string> = [];
  const job = (name: string, ms: number) =>
    Effect.gen(function* () {
      started.push(name);
      running += 1;
      peak = Math.max(peak, running);
      yield* Effect.sleep(ms);
      running -= 1;
      return name;
    }).pipe(Effect.onInterrupt(() => Effect.sync(() => (running -= 1))));
  return { job, peak: () => peak, started };
};

/** Waits until forked callers have reached the capacity (it reports `expected`), rather than for a fixed time. */
const untilLoad = (capacity: EngineCapacity, expected: ReturnType<EngineCapacity["load"]>) =>
  Effect.gen(function* () {
    const until = performance.now() + 2_000;
    while (performance.now() < until) {
      const load = capacity.load();
      if (load.running === expected.running && load.queued === expected.queued) return;
      yield* Effect.sleep(1);
    }
  });

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined);

describe("EngineCapacity", () => {
  it("runs at most `concurrency` jobs at once and queues the rest in order", async () => {
    const capacity = makeEngineCapacity({ concurrency: 2, maxQueue: 10 });
    const { job, peak, started } = probe();
    const names = ["a", "b", "c", "d", "e"];
    const results = await Effect.runPromise(
      Effect.all(
        names.map((n) => capacity.run(job(n, 30))),
        { concurrency: "unbounded" },
      ),
    );
    expect(results).toEqual(names);
    expect(peak()).toBe(2);
    expect(started).toEqual(names);
    expect(capacity.load()).toEqual({ running: 0, queued: 0 });
  });

  it("refuses with EngineBusy once the line is full, and admits again when it has moved", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1, maxQueue: 2 });
    const { job } = probe();
    const program = Effect.gen(function* () {
      const admitted = yield* Effect.forEach(["a", "b", "c"], (n) => Effect.forkChild(capacity.run(job(n, 100))));
      yield* untilLoad(capacity, { running: 1, queued: 2 });
      expect(capacity.load()).toEqual({ running: 1, queued: 2 });
      const refused = yield* Effect.exit(capacity.run(job("d", 1)));
      yield* Effect.forEach(admitted, Fiber.join);
      const later = yield* capacity.run(job("e", 1));
      return { refused, later };
    });
    const { refused, later } = await Effect.runPromise(program);
    expect(failureOf(refused)).toMatchObject({ _tag: "EngineBusy" });
    expect((failureOf(refused) as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(later).toBe("e");
  });

  it("states a Retry-After from how long the waiting line takes to clear", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1, maxQueue: 3 });
    const { job } = probe();
    const program = Effect.gen(function* () {
      yield* capacity.run(job("warm-up", 600)); // teaches it that jobs take ~0.6 s
      const queued = yield* Effect.forEach(["a", "b", "c", "d"], (n) => Effect.forkChild(capacity.run(job(n, 600))));
      yield* untilLoad(capacity, { running: 1, queued: 3 });
      const refused = yield* Effect.exit(capacity.run(job("e", 1)));
      yield* Effect.forEach(queued, Fiber.interrupt);
      return refused;
    });
    const refused = failureOf(await Effect.runPromise(program)) as { retryAfterSeconds: number };
    // 4 admitted jobs × 0.6 s on one slot: the line clears in about 2.4 s.
    expect(refused.retryAfterSeconds).toBe(3);
  });

  it("fails a job past its deadline with EngineTimeout", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1, maxQueue: 1, deadlineMs: 50 });
    const { job } = probe();
    const started = performance.now();
    const exit = await Effect.runPromiseExit(capacity.run(job("slow", 500)));
    expect(failureOf(exit)).toMatchObject({ _tag: "EngineTimeout", deadlineMs: 50 });
    expect(performance.now() - started).toBeLessThan(300);
  });

  it("keeps the slot of a timed-out job until the job really ends, and drops a job that timed out waiting", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1, maxQueue: 5, deadlineMs: 80 });
    const { job, started } = probe();
    const program = Effect.gen(function* () {
      const slow = yield* Effect.forkChild(Effect.exit(capacity.run(job("slow", 300))));
      yield* untilLoad(capacity, { running: 1, queued: 0 });
      const waiting = yield* Effect.exit(capacity.run(job("never-starts", 1)));
      const slowExit = yield* Fiber.join(slow);
      // The caller of "slow" gave up at 80 ms, but the work goes on and holds the only slot.
      expect(capacity.load()).toEqual({ running: 1, queued: 0 });
      yield* Effect.sleep(300);
      const after = yield* capacity.run(job("after", 1));
      return { waiting, slowExit, after };
    });
    const { waiting, slowExit, after } = await Effect.runPromise(program);
    expect(failureOf(slowExit)).toMatchObject({ _tag: "EngineTimeout" });
    expect(failureOf(waiting)).toMatchObject({ _tag: "EngineTimeout" });
    expect(after).toBe("after");
    expect(started).toEqual(["slow", "after"]);
  });

  it("refuses at once what could not finish within the deadline, and finishes everything it admits", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1, deadlineMs: 1_100 });
    const { job } = probe();
    const program = Effect.gen(function* () {
      yield* capacity.run(job("warm-up", 200)); // teaches it that jobs take ~0.2 s
      const startedAt = performance.now();
      const exits = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) =>
          Effect.exit(capacity.run(job(`j${i}`, 200))).pipe(Effect.map((exit) => ({ exit, ms: performance.now() - startedAt }))),
        ),
        { concurrency: "unbounded" },
      );
      return exits;
    });
    const outcomes = await Effect.runPromise(program);
    const refused = outcomes.filter(({ exit }) => failureOf(exit)?._tag === "EngineBusy");
    // One runs at once and four wait (~1 s); a sixth would end at ~1.2 s, past the deadline: five are refused without waiting.
    expect(outcomes.filter(({ exit }) => Exit.isSuccess(exit))).toHaveLength(5);
    expect(refused).toHaveLength(5);
    for (const { ms } of refused) expect(ms).toBeLessThan(100);
    expect(outcomes.some(({ exit }) => failureOf(exit)?._tag === "EngineTimeout")).toBe(false);
  });

  it("gives an account at most its share of the slots while another account waits", async () => {
    const capacity = makeEngineCapacity({ concurrency: 2 });
    const { job, started } = probe();
    const as = (tenant: string, name: string) => Effect.provideService(capacity.run(job(name, 60)), EngineTenant, tenant);
    const program = Effect.gen(function* () {
      const first = yield* Effect.forkChild(
        Effect.all(
          ["a1", "a2", "a3", "a4", "a5", "a6"].map((n) => as("account-a", n)),
          { concurrency: "unbounded" },
        ),
      );
      yield* untilLoad(capacity, { running: 2, queued: 4 });
      const second = yield* Effect.forkChild(
        Effect.all(
          ["b1", "b2"].map((n) => as("account-b", n)),
          { concurrency: "unbounded" },
        ),
      );
      yield* Fiber.join(first);
      yield* Fiber.join(second);
    });
    await Effect.runPromise(program);
    // In arrival order B would start after all six of A's; shared, A and B alternate once both wait.
    expect(started.slice(0, 5)).toEqual(["a1", "a2", "b1", "a3", "b2"]);
    expect(started).toHaveLength(8);
  });

  it("takes turns between accounts on one slot: a line of one account's jobs does not hold back another's", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1 });
    const { job, started } = probe();
    const as = (tenant: string, names: ReadonlyArray<string>) =>
      Effect.all(
        names.map((name) => Effect.provideService(capacity.run(job(name, 30)), EngineTenant, tenant)),
        { concurrency: "unbounded" },
      );
    const program = Effect.gen(function* () {
      const a = yield* Effect.forkChild(as("account-a", ["a1", "a2", "a3", "a4"]));
      yield* untilLoad(capacity, { running: 1, queued: 3 });
      const b = yield* Effect.forkChild(as("account-b", ["b1", "b2"]));
      yield* untilLoad(capacity, { running: 1, queued: 5 });
      const c = yield* Effect.forkChild(as("account-c", ["c1"]));
      yield* untilLoad(capacity, { running: 1, queued: 6 });
      yield* Fiber.join(a);
      yield* Fiber.join(b);
      yield* Fiber.join(c);
    });
    await Effect.runPromise(program);
    // In arrival order C would wait for all six jobs ahead of it; in turns, for one job of each account.
    expect(started).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
  });

  it("lets one account use every slot when nobody else waits", async () => {
    const capacity = makeEngineCapacity({ concurrency: 3 });
    const { job, peak } = probe();
    await Effect.runPromise(
      Effect.all(
        ["a1", "a2", "a3", "a4"].map((n) => Effect.provideService(capacity.run(job(n, 40)), EngineTenant, "account-a")),
        { concurrency: "unbounded" },
      ),
    );
    expect(peak()).toBe(3);
  });

  it("passes a job's own failure through and frees its slot", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1, maxQueue: 0 });
    const exit = await Effect.runPromiseExit(capacity.run(Effect.fail("boom" as const)));
    expect(failureOf(exit)).toBe("boom");
    expect(await Effect.runPromise(capacity.run(Effect.succeed(1)))).toBe(1);
  });

  it("stops a running job whose caller leaves, when the engine's jobs stop on their signal, and frees its slot at once", async () => {
    const capacity = makeEngineCapacity({ concurrency: 1, deadlineMs: 10_000, stopsWhenInterrupted: true });
    let stopped = false;
    // As an OCR recognition: a promise that ends early when its abort signal fires.
    const longJob = Effect.tryPromise({
      try: (signal) =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => resolve("finished"), 5_000);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            stopped = true;
            reject(new Error("stopped"));
          });
        }),
      catch: (cause) => cause,
    });
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const caller = yield* Effect.forkChild(capacity.run(longJob));
        yield* untilLoad(capacity, { running: 1, queued: 0 });
        // The client leaves: the use case's fiber is interrupted.
        yield* Fiber.interrupt(caller);
        const startedNext = performance.now();
        const next = yield* capacity.run(Effect.succeed("next"));
        return { next, waitedMs: performance.now() - startedNext };
      }),
    );
    expect(stopped).toBe(true);
    expect(outcome.next).toBe("next");
    expect(outcome.waitedMs).toBeLessThan(500);
    expect(capacity.load()).toEqual({ running: 0, queued: 0 });
  });
});

describe("boundedImageEngineLayer", () => {
  it("decorates the engine below it: renders and transcodes share its slots", async () => {
    let calls = 0;
    const rendered = { bytes: new Uint8Array(1), format: "jpeg" as const, contentType: "image/jpeg", width: 1, height: 1 };
    const slow = <A>(value: A) =>
      Effect.sleep(100).pipe(
        Effect.tap(() => Effect.sync(() => (calls += 1))),
        Effect.as(value),
      );
    const slowEngine = Layer.succeed(ImageEngine)({
      render: () => slow({ ...rendered, placeholder: { blurhash: "00000", thumbhash: "" } }),
      transcode: () => slow(rendered),
      renderDesign: () => slow({ ...rendered, placeholder: { blurhash: "00000", thumbhash: "" } }),
    });
    const image = { bytes: new Uint8Array(1), format: "jpeg" as const, width: 1, height: 1 };
    const template = TEMPLATES[0];
    if (!template) throw new Error("empty catalog");
    const program = Effect.gen(function* () {
      const engine = yield* ImageEngine;
      return yield* Effect.all(
        [engine.render(image, template), engine.transcode(image, { format: "webp", quality: 80 }), engine.render(image, template)].map((job) =>
          Effect.exit(job),
        ),
        { concurrency: "unbounded" },
      );
    });
    const exits = await Effect.runPromise(
      program.pipe(Effect.provide(boundedImageEngineLayer({ concurrency: 1, maxQueue: 1 }).pipe(Layer.provide(slowEngine)))),
    );
    expect(exits.filter(Exit.isSuccess)).toHaveLength(2);
    expect(exits.map(failureOf).filter(Boolean)).toMatchObject([{ _tag: "EngineBusy" }]);
    expect(calls).toBe(2);
  });
});
