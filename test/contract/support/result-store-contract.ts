import { randomBytes, randomUUID } from "node:crypto";
import { Effect, Exit, type Layer, Option } from "effect";
import { describe, expect, it } from "vitest";
import type { DependencyUnavailable } from "../../../src/ports/errors.ts";
import { ResultStore } from "../../../src/ports/result-store.ts";

const T0 = new Date("2026-11-10T12:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);
const HOUR = 3_600_000;

/** The behaviour every ResultStore adapter must have. `layer` gives a fresh, empty store each call. */
/** `skip` says why the suite cannot run here (its server is absent). */
export const resultStoreContract = (name: string, layer: () => Promise<Layer.Layer<ResultStore, DependencyUnavailable>>, skip?: string) =>
  describe.skipIf(skip !== undefined)(`ResultStore contract: ${name}`, () => {
    const run = async <A, E>(program: Effect.Effect<A, E, ResultStore>) => Effect.runPromise(program.pipe(Effect.provide(await layer())));
    const put = (resultId: string, bytes: Uint8Array, expiresAt = later(HOUR), contentType = "image/png") =>
      Effect.gen(function* () {
        yield* (yield* ResultStore).put({ resultId, bytes, contentType, expiresAt });
      });
    const get = (resultId: string, now = T0) =>
      Effect.gen(function* () {
        return yield* (yield* ResultStore).get(resultId, now);
      });

    it("returns what was put: bytes, content type and expiry", async () => {
      const id = randomUUID();
      const bytes = randomBytes(1_000_000);
      const found = await run(Effect.andThen(put(id, bytes, later(HOUR), "image/webp"), get(id)));
      expect(Option.isSome(found)).toBe(true);
      const result = Option.getOrThrow(found);
      expect(Buffer.from(result.bytes).equals(bytes)).toBe(true);
      expect(result.contentType).toBe("image/webp");
      expect(result.expiresAt.toISOString()).toBe(later(HOUR).toISOString());
    });

    it("returns a kept JSON response byte for byte, multi-byte text included (a replay checks its SHA-256)", async () => {
      const id = randomUUID();
      const json = new TextEncoder().encode(JSON.stringify({ success: true, data: { text: 'Grüße, 東京 مرحبا 👋\n\t"quoted"' } }));
      const found = await run(Effect.andThen(put(id, json, later(24 * HOUR), "application/json"), get(id, later(24 * HOUR - 1))));
      expect(Buffer.from(Option.getOrThrow(found).bytes).equals(Buffer.from(json))).toBe(true);
      expect(Option.getOrThrow(found).contentType).toBe("application/json");
    });

    it("keeps empty results", async () => {
      const id = randomUUID();
      const found = await run(Effect.andThen(put(id, new Uint8Array(0)), get(id)));
      expect(Option.getOrThrow(found).bytes.length).toBe(0);
    });

    it("knows nothing of an id that was never put", async () => {
      expect(Option.isNone(await run(get(randomUUID())))).toBe(true);
    });

    it("stops returning a result at its expiry", async () => {
      const id = randomUUID();
      const program = Effect.gen(function* () {
        yield* put(id, new Uint8Array([1, 2, 3]), later(HOUR));
        return [yield* get(id, later(HOUR - 1)), yield* get(id, later(HOUR)), yield* get(id, later(2 * HOUR))];
      });
      expect((await run(program)).map(Option.isSome)).toEqual([true, false, false]);
    });

    it("replaces a result put again under the same id", async () => {
      const id = randomUUID();
      const found = await run(Effect.andThen(Effect.andThen(put(id, new Uint8Array([1])), put(id, new Uint8Array([2]))), get(id)));
      expect([...Option.getOrThrow(found).bytes]).toEqual([2]);
    });

    it("deletes expired results only, and says how many", async () => {
      const [gone1, gone2, kept] = [randomUUID(), randomUUID(), randomUUID()];
      const program = Effect.gen(function* () {
        const store = yield* ResultStore;
        yield* put(gone1, new Uint8Array([1]), later(HOUR));
        yield* put(gone2, new Uint8Array([2]), later(2 * HOUR));
        yield* put(kept, new Uint8Array([3]), later(3 * HOUR));
        const deleted = yield* store.deleteExpired(later(2 * HOUR));
        const again = yield* store.deleteExpired(later(2 * HOUR));
        // Asked as of an earlier time, a deleted result stays gone; the other one is still there.
        return { deleted, again, gone1: yield* get(gone1), gone2: yield* get(gone2), kept: yield* get(kept) };
      });
      const outcome = await run(program);
      expect([outcome.deleted, outcome.again]).toEqual([2, 0]);
      expect([outcome.gone1, outcome.gone2, outcome.kept].map(Option.isSome)).toEqual([false, false, true]);
    });

    const putVariant = (resultId: string, format: "avif" | "webp", bytes: Uint8Array, expiresAt = later(HOUR)) =>
      Effect.gen(function* () {
        yield* (yield* ResultStore).putVariant({ resultId, format, bytes, contentType: `image/${format}`, expiresAt });
      });
    const getVariant = (resultId: string, format: "avif" | "webp" | "jpeg", now = T0) =>
      Effect.gen(function* () {
        return yield* (yield* ResultStore).getVariant(resultId, format, now);
      });

    it("keeps a result's variants beside it, each under its format, the result itself unchanged", async () => {
      const id = randomUUID();
      const [original, avif, webp] = [randomBytes(2_000), randomBytes(1_000), randomBytes(1_500)];
      const program = Effect.gen(function* () {
        yield* put(id, original, later(HOUR), "image/jpeg");
        yield* putVariant(id, "avif", avif);
        yield* putVariant(id, "webp", webp);
        return { result: yield* get(id), avif: yield* getVariant(id, "avif"), webp: yield* getVariant(id, "webp") };
      });
      const found = await run(program);
      expect(Buffer.from(Option.getOrThrow(found.result).bytes).equals(original)).toBe(true);
      expect(Option.getOrThrow(found.result).contentType).toBe("image/jpeg");
      expect(Buffer.from(Option.getOrThrow(found.avif).bytes).equals(avif)).toBe(true);
      expect(Option.getOrThrow(found.avif)).toMatchObject({ contentType: "image/avif", expiresAt: later(HOUR) });
      expect(Buffer.from(Option.getOrThrow(found.webp).bytes).equals(webp)).toBe(true);
    });

    it("knows no variant that was never put, of a known result or an unknown one", async () => {
      const id = randomUUID();
      const program = Effect.gen(function* () {
        yield* put(id, new Uint8Array([1]), later(HOUR), "image/jpeg");
        yield* putVariant(id, "webp", new Uint8Array([2]));
        return [yield* getVariant(id, "avif"), yield* getVariant(id, "jpeg"), yield* getVariant(randomUUID(), "webp"), yield* getVariant("../x", "webp")];
      });
      expect((await run(program)).map(Option.isSome)).toEqual([false, false, false, false]);
    });

    it("takes a variant put again (two instances made it at once) as the same one", async () => {
      const id = randomUUID();
      const program = Effect.gen(function* () {
        yield* put(id, new Uint8Array([1]), later(HOUR), "image/jpeg");
        yield* putVariant(id, "avif", new Uint8Array([7, 7]));
        yield* putVariant(id, "avif", new Uint8Array([7, 7]));
        return yield* getVariant(id, "avif");
      });
      expect([...Option.getOrThrow(await run(program)).bytes]).toEqual([7, 7]);
    });

    it("ends a variant with its result: unseen at the expiry, deleted by the sweep with it", async () => {
      const [gone, kept] = [randomUUID(), randomUUID()];
      const program = Effect.gen(function* () {
        const store = yield* ResultStore;
        yield* put(gone, new Uint8Array([1]), later(HOUR), "image/jpeg");
        yield* putVariant(gone, "avif", new Uint8Array([2]), later(HOUR));
        yield* putVariant(gone, "webp", new Uint8Array([3]), later(HOUR));
        yield* put(kept, new Uint8Array([4]), later(3 * HOUR), "image/jpeg");
        yield* putVariant(kept, "avif", new Uint8Array([5]), later(3 * HOUR));
        const atExpiry = yield* getVariant(gone, "avif", later(HOUR));
        const deleted = yield* store.deleteExpired(later(2 * HOUR));
        // Asked as of before the expiry: the variants were deleted, not only hidden.
        return { atExpiry, deleted, avif: yield* getVariant(gone, "avif"), webp: yield* getVariant(gone, "webp"), kept: yield* getVariant(kept, "avif") };
      });
      const outcome = await run(program);
      expect(Option.isNone(outcome.atExpiry)).toBe(true);
      expect(outcome.deleted).toBe(3);
      expect([outcome.avif, outcome.webp, outcome.kept].map(Option.isSome)).toEqual([false, false, true]);
    });

    it("refuses to store a variant under an unsafe id", async () => {
      const exit = await Effect.runPromiseExit(putVariant("../escape-attempt", "avif", new Uint8Array([1])).pipe(Effect.provide(await layer())));
      expect(Exit.isFailure(exit) && exit.cause.reasons.some((r) => r._tag === "Die")).toBe(true);
    });

    it.each(["../../../etc/passwd", "..", "a/b/c/d/e/f", "abc\0defgh", "/etc/passwd", "..%2F..%2Fetc", "short", "x".repeat(300)])(
      "treats the unsafe id %j as unknown",
      async (id) => {
        expect(Option.isNone(await run(get(id)))).toBe(true);
      },
    );

    it("refuses to store under an unsafe id (a fault of the caller, not of the store)", async () => {
      const exit = await (async () => Effect.runPromiseExit(put("../escape-attempt", new Uint8Array([1])).pipe(Effect.provide(await layer()))))();
      expect(Exit.isFailure(exit) && exit.cause.reasons.some((r) => r._tag === "Die")).toBe(true);
    });
  });
