import type { Worker } from "node:worker_threads";
import { Context, Effect } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { OnnxTryOnEngineLive, type OnnxTryOnEngineOptions } from "../../src/adapters/tryon/onnx-tryon-engine.ts";
import { DEFAULT_TRYON_SETTINGS } from "../../src/domain/tryon-settings.ts";
import { TryOnEngine } from "../../src/ports/engines/tryon-engine.ts";
import { validated } from "../fixtures/tryon/image-metrics.ts";
import { openLayer } from "../fixtures/tryon/open-layer.ts";
import * as fixtures from "../fixtures/tryon/tryon-fixtures.ts";

/** The engine as the service holds it: its layer (and so its try-on thread) open until the test ends. */
const engineWith = async (options: OnnxTryOnEngineOptions) => {
  const opened = await openLayer(OnnxTryOnEngineLive(options));
  closes.push(opened.close);
  return Context.get(opened.context, TryOnEngine);
};
const closes: Array<() => Promise<void>> = [];
afterEach(() => Promise.all(closes.splice(0).map((close) => close())));

describe("try-on engine admission", () => {
  it("answers EngineBusy beyond one running request and its queue, and serves the rest", async () => {
    const engine = await engineWith({ maxWaiting: 1 });
    const request = { person: await validated(fixtures.astronaut()), clothing: await validated(await fixtures.tshirt()), settings: DEFAULT_TRYON_SETTINGS };
    const outcomes = await Promise.all([1, 2, 3].map(() => Effect.runPromise(Effect.result(engine.tryOn(request)))));
    const busy = outcomes.filter((o) => o._tag === "Failure");
    expect(busy).toHaveLength(1);
    expect(busy[0]).toMatchObject({ failure: { _tag: "EngineBusy", retryAfterSeconds: expect.any(Number) } });
    // Once the queue drains, the engine admits again.
    expect((await Effect.runPromise(Effect.result(engine.tryOn(request))))._tag).toBe("Success");
  });

  it("answers EngineTimeout past the deadline", async () => {
    const engine = await engineWith({ deadlineMs: 1 });
    const request = { person: await validated(fixtures.astronaut()), clothing: await validated(await fixtures.tshirt()), settings: DEFAULT_TRYON_SETTINGS };
    const error = await Effect.runPromise(Effect.flip(engine.tryOn(request)));
    expect(error).toMatchObject({ _tag: "EngineTimeout", deadlineMs: 1 });
  });

  it("discards a thread whose job failed mid-way, and serves the next request on a fresh one", async () => {
    const threads: Array<Worker> = [];
    const started = (worker: Worker) => threads.push(worker);
    process.on("worker", started);
    try {
      const engine = await engineWith({});
      expect(threads).toHaveLength(1);
      const request = { person: await validated(fixtures.astronaut()), clothing: await validated(await fixtures.tshirt()), settings: DEFAULT_TRYON_SETTINGS };
      // A value no stage foresees fails the job after the models have run: the thread's state is no longer known.
      const unforeseen = { ...request, settings: { ...DEFAULT_TRYON_SETTINGS, lightingStyle: "unforeseen" as never } };
      expect(await Effect.runPromise(Effect.flip(engine.tryOn(unforeseen)))).toMatchObject({ _tag: "DependencyUnavailable", dependency: "try-on thread" });
      const next = await Effect.runPromise(Effect.result(engine.tryOn(request)));
      expect(next._tag).toBe("Success");
      expect(threads).toHaveLength(2);
    } finally {
      process.off("worker", started);
    }
  });
});
