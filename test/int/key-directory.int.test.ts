import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Layer, Option } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { inMemoryEventStoreLayer } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { sqliteProjectionsLayer } from "../../src/adapters/projections/sqlite-projections.ts";
import { FOUND_KEY_TTL_MS, KeyDirectory, keyDirectoryLayer, UNKNOWN_KEY_TTL_MS } from "../../src/application/access/key-directory.ts";
import { catchUpFromStore } from "../../src/application/event-sourcing/projection-runner.ts";
import { accountStream } from "../../src/domain/account.ts";
import { manualClock } from "../../src/ports/clock.ts";
import { EventStore, type JsonObject } from "../../src/ports/event-store.ts";
import { KeyProjection } from "../../src/ports/projections.ts";

/** The key directory over a real SQLite key projection, fed from the store as the server feeds it. */
const directories: Array<string> = [];
afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

const at = "2026-11-22T10:00:00.000Z";
const account = accountStream("acc_1");

/** Store reads, counted: what an unknown key id costs. */
let storeReads = 0;
const countingReads = () =>
  Layer.effect(EventStore)(
    Effect.map(EventStore, (store) => ({
      ...store,
      readAll: (options: Parameters<typeof store.readAll>[0]) => {
        storeReads++;
        return store.readAll(options);
      },
    })),
  ).pipe(Layer.provide(inMemoryEventStoreLayer()));

const withDirectory = <A>(body: (advance: (ms: number) => void) => Effect.Effect<A, unknown, KeyDirectory | KeyProjection | EventStore>) => {
  const directory = mkdtempSync(join(tmpdir(), "its-keys-"));
  directories.push(directory);
  storeReads = 0;
  const clock = manualClock(new Date(at));
  const base = Layer.mergeAll(countingReads(), sqliteProjectionsLayer({ path: join(directory, "projections.sqlite") }), clock.layer);
  return Effect.runPromise(body(clock.advance).pipe(Effect.provide(keyDirectoryLayer.pipe(Layer.provideMerge(base)))));
};

const append = (revision: number, type: string, data: JsonObject) =>
  Effect.gen(function* () {
    return yield* (yield* EventStore).appendToStream(account, [{ type, data }], { expectedRevision: revision });
  });

const found = (keyId: string) =>
  Effect.gen(function* () {
    return Option.isSome(yield* (yield* KeyDirectory).findKey(keyId));
  });

describe("the key directory", () => {
  it("finds a key issued after it last looked, and stops finding a revoked one within its memory time", () =>
    withDirectory((advance) =>
      Effect.gen(function* () {
        yield* append(-1, "AccountOpened", { accountId: "acc_1", email: "a@example.com", name: "A", plan: "free", at });
        yield* append(0, "ApiKeyIssued", { accountId: "acc_1", keyId: "k1", name: "k", secretHash: "hash", at });
        // Issued after the directory last looked: a miss catches up from the store, so it works at once.
        expect(yield* found("k1")).toBe(true);

        yield* append(1, "ApiKeyRevoked", { accountId: "acc_1", keyId: "k1", at });
        yield* catchUpFromStore(yield* KeyProjection);
        expect(yield* found("k1")).toBe(true);
        advance(FOUND_KEY_TTL_MS - 1);
        expect(yield* found("k1")).toBe(true);
        advance(1);
        expect(yield* found("k1")).toBe(false);
      }),
    ));

  it("remembers an id the store did not know, so a guesser's repeated id costs one store read", () =>
    withDirectory((advance) =>
      Effect.gen(function* () {
        const readsBefore = storeReads;
        for (let i = 0; i < 5; i++) expect(yield* found("guessed")).toBe(false);
        expect(storeReads - readsBefore).toBe(1);
        advance(UNKNOWN_KEY_TTL_MS);
        expect(yield* found("guessed")).toBe(false);
        expect(storeReads - readsBefore).toBe(2);
      }),
    ));

  it("asks the caller before a store read, and reads nothing when the caller refuses", () =>
    withDirectory(() =>
      Effect.gen(function* () {
        const directory = yield* KeyDirectory;
        const readsBefore = storeReads;
        const refused = yield* Effect.flip(directory.findKey("unknown-1", Effect.fail("throttled" as const)));
        expect(refused).toBe("throttled");
        expect(storeReads).toBe(readsBefore);
        yield* append(-1, "AccountOpened", { accountId: "acc_1", email: "a@example.com", name: "A", plan: "free", at });
        yield* append(0, "ApiKeyIssued", { accountId: "acc_1", keyId: "k1", name: "k", secretHash: "hash", at });
        yield* catchUpFromStore(yield* KeyProjection);
        // A key the projection holds needs no store read, so the caller is not asked.
        expect(Option.isSome(yield* directory.findKey("k1", Effect.fail("throttled" as const)))).toBe(true);
      }),
    ));
});
