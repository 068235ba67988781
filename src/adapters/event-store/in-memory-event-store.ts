import { randomUUID } from "node:crypto";
import { type Duration, Effect, Layer } from "effect";
import { EventStore, type EventStoreShape, type RecordedEvent } from "../../ports/event-store.ts";
import { checkExpectedRevision } from "./expected-revision.ts";
import { defaultPollInterval, followByPolling } from "./follow-by-polling.ts";

/**
 * The events of an in-memory store. Several store instances may share one, which is how tests
 * stand in for several processes on one database. Global position n is at index n - 1.
 */
export interface InMemoryEventStorage {
  readonly all: Array<RecordedEvent>;
  readonly streams: Map<string, Array<RecordedEvent>>;
}

export const makeInMemoryEventStorage = (): InMemoryEventStorage => ({ all: [], streams: new Map() });

export interface InMemoryEventStoreOptions {
  readonly storage?: InMemoryEventStorage;
  readonly pollInterval?: Duration.Input;
}

export const makeInMemoryEventStore = (options: InMemoryEventStoreOptions = {}): EventStoreShape => {
  const storage = options.storage ?? makeInMemoryEventStorage();
  const readAll: EventStoreShape["readAll"] = ({ after, limit }) => Effect.sync(() => storage.all.slice(Math.max(after, 0), Math.max(after, 0) + limit));
  return {
    // Synchronous from check to write, so no other append can interleave: that is the atomicity here.
    appendToStream: (streamName, events, { expectedRevision }) =>
      Effect.suspend(() => {
        const stream = storage.streams.get(streamName) ?? [];
        const actual = stream.length - 1;
        const conflict = checkExpectedRevision(streamName, expectedRevision, actual);
        if (conflict) return Effect.fail(conflict);
        const recordedAt = new Date().toISOString();
        for (const event of events) {
          const recorded: RecordedEvent = {
            eventId: event.eventId ?? randomUUID(),
            streamName,
            streamRevision: stream.length,
            globalPosition: storage.all.length + 1,
            type: event.type,
            data: structuredClone(event.data),
            metadata: structuredClone(event.metadata ?? {}),
            recordedAt,
          };
          stream.push(recorded);
          storage.all.push(recorded);
        }
        if (stream.length > 0) storage.streams.set(streamName, stream);
        return Effect.succeed({
          nextExpectedRevision: stream.length - 1,
          lastGlobalPosition: stream.at(-1)?.globalPosition ?? 0,
        });
      }),
    readStream: (streamName, readOptions) => Effect.sync(() => (storage.streams.get(streamName) ?? []).slice(Math.max(readOptions?.fromRevision ?? 0, 0))),
    readAll,
    headPosition: Effect.sync(() => storage.all.length),
    follow: ({ after }) => followByPolling(readAll, after, { pollInterval: options.pollInterval ?? defaultPollInterval }),
  };
};

/** The Test layer: a store in memory, fresh unless `storage` is shared. */
export const inMemoryEventStoreLayer = (options: InMemoryEventStoreOptions = {}) => Layer.succeed(EventStore)(makeInMemoryEventStore(options));
