import { Effect, Layer, Option } from "effect";
import { ResultStore, type ResultStoreShape, type StoredResult } from "../../ports/result-store.ts";
import { isSafeResultId } from "./result-id.ts";

const unsafe = (resultId: string) => Effect.die(new Error(`unsafe result id ${JSON.stringify(resultId)}`));

/** Results in a Map, keyed by id, and their variants by `<id>/<format>`: for tests and single-process development. */
export const makeInMemoryResultStore = (): ResultStoreShape => {
  const results = new Map<string, StoredResult>();
  const keep = (key: string, { bytes, contentType, expiresAt }: StoredResult) =>
    Effect.sync(() => void results.set(key, { bytes: Uint8Array.from(bytes), contentType, expiresAt }));
  const find = (resultId: string, key: string, now: Date) =>
    Effect.sync(() => {
      if (!isSafeResultId(resultId)) return Option.none();
      const result = results.get(key);
      return result && result.expiresAt > now ? Option.some(result) : Option.none();
    });
  return {
    put: (result) => (isSafeResultId(result.resultId) ? keep(result.resultId, result) : unsafe(result.resultId)),
    get: (resultId, now) => find(resultId, resultId, now),
    putVariant: (variant) => (isSafeResultId(variant.resultId) ? keep(`${variant.resultId}/${variant.format}`, variant) : unsafe(variant.resultId)),
    getVariant: (resultId, format, now) => find(resultId, `${resultId}/${format}`, now),
    deleteExpired: (now) =>
      Effect.sync(() => {
        let deleted = 0;
        for (const [key, result] of results) {
          if (result.expiresAt <= now) {
            results.delete(key);
            deleted += 1;
          }
        }
        return deleted;
      }),
  };
};

export const inMemoryResultStoreLayer = () => Layer.sync(ResultStore)(makeInMemoryResultStore);
