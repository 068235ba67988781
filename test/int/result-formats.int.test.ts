import { Effect, Fiber, Layer, Option } from "effect";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { makeSharpImageEngine } from "../../src/adapters/image/sharp-image-engine.ts";
import { sharpImageInspectorLayer } from "../../src/adapters/image/sharp-image-inspector.ts";
import { makeInMemoryResultStore } from "../../src/adapters/results/in-memory-result-store.ts";
import { makeResultFormats } from "../../src/application/transformations/result-formats.ts";
import { ImageEngine, type ImageEngineShape } from "../../src/ports/engines/image-engine.ts";
import type { ImageInspector } from "../../src/ports/engines/image-inspector.ts";
import { ResultStore } from "../../src/ports/result-store.ts";
import { ellipsePersonSegmenter } from "../support/ellipse-person-segmenter.ts";
import { photoJpeg, photoPng } from "../support/image-fixtures.ts";

/** The real engine and inspector with an in-memory store, counting the transcodes that reach the engine. */
const setup = () => {
  const engine = makeSharpImageEngine(ellipsePersonSegmenter().service);
  const transcodes: Array<string> = [];
  const counting: ImageEngineShape = {
    ...engine,
    transcode: (image, output) =>
      Effect.andThen(
        Effect.sync(() => transcodes.push(output.format)),
        engine.transcode(image, output),
      ),
  };
  const store = makeInMemoryResultStore();
  const layer = Layer.mergeAll(Layer.succeed(ImageEngine)(counting), Layer.succeed(ResultStore)(store), sharpImageInspectorLayer());
  return {
    transcodes,
    store,
    run: <A, E>(program: Effect.Effect<A, E, ImageEngine | ImageInspector | ResultStore>) => Effect.runPromise(Effect.provide(program, layer)),
  };
};

const NOW = new Date("2026-11-26T12:00:00Z");
const EXPIRES = new Date("2026-11-27T12:00:00Z");

describe("result formats", () => {
  it("transcodes a variant once for concurrent first fetches on one instance, then serves it from the store", async () => {
    const { transcodes, store, run } = setup();
    const formats = makeResultFormats();
    await run(store.put({ resultId: "result-0001", bytes: await photoJpeg(800, 600), contentType: "image/jpeg", expiresAt: EXPIRES }));
    const fetches = Array.from({ length: 6 }, () => formats.serve("result-0001", NOW, { accept: "image/avif,image/webp,*/*" }));
    const served = await run(Effect.all(fetches, { concurrency: "unbounded" }));
    expect(transcodes).toEqual(["avif"]);
    const bodies = served.map((s) => Buffer.from(Option.getOrThrow(s).result.bytes));
    for (const body of bodies) expect(body.equals(bodies[0]!)).toBe(true);
    expect(served.every((s) => Option.getOrThrow(s).negotiated && Option.getOrThrow(s).result.contentType === "image/avif")).toBe(true);
    expect((await sharp(bodies[0]).metadata()).format).toBe("heif");

    const variant = await run(store.getVariant("result-0001", "avif", NOW));
    expect(Option.getOrThrow(variant).expiresAt).toEqual(EXPIRES);
    await run(formats.serve("result-0001", NOW, { accept: "image/avif" }));
    expect(transcodes).toEqual(["avif"]);
  });

  it("still makes and keeps a variant when the fetch that started it leaves; the next fetch gets that one", async () => {
    const { transcodes, store, run } = setup();
    const formats = makeResultFormats();
    await run(store.put({ resultId: "result-0003", bytes: await photoJpeg(800, 600), contentType: "image/jpeg", expiresAt: EXPIRES }));
    const program = Effect.gen(function* () {
      const leaving = yield* Effect.forkChild(formats.serve("result-0003", NOW, { named: "webp" }));
      while (transcodes.length === 0) yield* Effect.sleep(1);
      yield* Fiber.interrupt(leaving);
      return yield* formats.serve("result-0003", NOW, { named: "webp" });
    });
    const next = Option.getOrThrow(await run(program));
    expect(next.result.contentType).toBe("image/webp");
    expect(transcodes).toEqual(["webp"]);
    expect(Option.isSome(await run(store.getVariant("result-0003", "webp", NOW)))).toBe(true);
  });

  it("serves a named format over Accept, keeps a PNG result's format under Accept, and knows no expired result", async () => {
    const { transcodes, store, run } = setup();
    const formats = makeResultFormats();
    await run(store.put({ resultId: "result-0002", bytes: await photoPng(300, 200), contentType: "image/png", expiresAt: EXPIRES }));
    const byAccept = Option.getOrThrow(await run(formats.serve("result-0002", NOW, { accept: "image/avif,image/webp,*/*" })));
    expect([byAccept.result.contentType, byAccept.negotiated, transcodes.length]).toEqual(["image/png", false, 0]);
    const named = Option.getOrThrow(await run(formats.serve("result-0002", NOW, { named: "webp", accept: "image/avif" })));
    expect([named.result.contentType, named.negotiated, transcodes]).toEqual(["image/webp", false, ["webp"]]);
    expect(Option.isNone(await run(formats.serve("result-0002", EXPIRES, {})))).toBe(true);
  });
});
