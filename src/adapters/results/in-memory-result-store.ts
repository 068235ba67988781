import { Effect, Layer, Option } from "effect";
import { ResultStore, type ResultStoreShape, type StoredResult } from "../../ports/result-store.ts";
import { isSafeResultId } from "./result-id.ts";

/** Results in a Map: for tests and single-process development. */
export const makeInMemoryResultStore = (): ResultStoreShape => {
  const results = new Map<string, StoredResult>();
  return {
    put: ({ resultId, bytes, contentType, expiresAt }) =>
      isSafeResultId(resultId)
        ? Effect.sync(() => void results.set(resultId, { bytes: Uint8Array.from(bytes), contentType, expiresAt }))
        : Effect.die(new Error(`unsafe result id ${JSON.stringify(resultId)}`)),
    get: (resultId, now) =>
      Effect.sync(() => {
        const result = results.get(resultId);
        return result && result.expiresAt > now ? Option.some(result) : Option.none();
      }),
    deleteExpired: (now) =>
      Effect.sync(() => {
        let deleted = 0;
        for (const [resultId, result] of results) {
          if (result.expiresAt <= now) {
            results.delete(resultId);
            deleted += 1;
          }
        }
        return deleted;
      }),
  };
};

export const inMemoryResultStoreLayer = () => Layer.sync(ResultStore)(makeInMemoryResultStore);
