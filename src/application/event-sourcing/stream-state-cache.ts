import { Context, Layer } from "effect";

/**
 * The last folded state of recently used streams, with the revision it reflects. Streams only
 * grow, so a cached state is brought up to date by reading the events after its revision: a
 * quota ledger with thousands of events this month is not re-read and re-folded per request.
 * Keys name the decider as well as the stream, since a state only makes sense to its decider.
 */
export interface CachedState {
  readonly state: unknown;
  readonly revision: number;
}

export interface StreamStateCacheShape {
  readonly get: (key: string) => CachedState | undefined;
  readonly set: (key: string, entry: CachedState) => void;
}

export class StreamStateCache extends Context.Service<StreamStateCache, StreamStateCacheShape>()("StreamStateCache") {}

/** Least-recently-used, bounded: a Map keeps insertion order, so the first key is the coldest. */
export const lruStreamStateCache = (capacity = 10_000) =>
  Layer.sync(StreamStateCache)(() => {
    const entries = new Map<string, CachedState>();
    return {
      get: (key) => {
        const entry = entries.get(key);
        if (entry) {
          entries.delete(key);
          entries.set(key, entry);
        }
        return entry;
      },
      set: (key, entry) => {
        const current = entries.get(key);
        if (current && current.revision > entry.revision) return;
        entries.delete(key);
        entries.set(key, entry);
        if (entries.size > capacity) entries.delete(entries.keys().next().value!);
      },
    };
  });
