import { randomUUID } from "node:crypto";
import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, RetentionPolicy, StorageType, type StoredMsg } from "@nats-io/jetstream";
import { type Duration, Effect, Layer } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { EventStore, type EventStoreShape, NO_STREAM, type RecordedEvent } from "../../ports/event-store.ts";
import { NatsClient, natsConnectionLayer } from "../nats/nats-connection.ts";
import type { NatsAuth } from "../nats/nats-credentials.ts";
import { checkExpectedRevision } from "./expected-revision.ts";
import { defaultPollInterval, followByPolling } from "./follow-by-polling.ts";
import { readFailure, storedEvent } from "./stored-event-row.ts";

/**
 * Events in a NATS JetStream stream, for a deployment that runs NATS already (bus, rate limiter,
 * results) and wants no database beside it. Each append is one message on the event stream's own
 * subject, holding the whole batch: JetStream stores a message whole or not at all, and refuses it
 * unless the subject's last message is the one the append read (Nats-Expected-Last-Subject-Sequence),
 * which is the revision check; an "any" append that lost that race reads again and retries. The
 * server numbers messages in the order it stores them and shows none before those below it, so
 * reads of the global order see no gaps. An event's global position is its message's sequence
 * times 2^16 plus its index in the batch: increasing, not consecutive (as KurrentDB's).
 */
export interface JetStreamEventStoreOptions {
  /** e.g. nats://127.0.0.1:4222 (several, comma-separated), without credentials. */
  readonly servers: string;
  readonly auth?: NatsAuth;
  /** The JetStream stream that holds the events (its subjects: `<stream>.<name in base64url>`); created on first start. */
  readonly stream: string;
  readonly pollInterval?: Duration.Input;
}

const dependency = "event-store (nats)";
/** Events one append may hold: the index's room in a global position. */
const batchRoom = 2 ** 16;

/** What one message holds: the batch, from the revision of its first event. */
interface StoredBatch {
  readonly revision: number;
  readonly events: ReadonlyArray<{ eventId: string; type: string; data: unknown; metadata: unknown; recordedAt: string }>;
}

/** A subject token for any stream name: base64url has no `.`, `*`, `>` or space. */
const subjectOf = (stream: string, streamName: string) => `${stream}.${Buffer.from(streamName, "utf8").toString("base64url")}`;
const streamNameOf = (stream: string, subject: string) => Buffer.from(subject.slice(stream.length + 1), "base64url").toString("utf8");

const makeStore = (manager: JetStreamManager, stream: string, pollInterval: Duration.Input): EventStoreShape => {
  const js = manager.jetstream();
  const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency, cause });
  const batchOf = (message: StoredMsg) => message.json<StoredBatch>();
  /** The message's events that `wanted` keeps, decoded: one not asked for is not read, as a database reads no row it skips. */
  const eventsOf = (message: StoredMsg, wanted: (event: { revision: number; globalPosition: number }) => boolean): ReadonlyArray<RecordedEvent> => {
    const batch = batchOf(message);
    const streamName = streamNameOf(stream, message.subject);
    return batch.events.flatMap((event, index) => {
      const place = { revision: batch.revision + index, globalPosition: message.seq * batchRoom + index };
      return wanted(place) ? [storedEvent({ streamName, ...place, eventId: event.eventId, type: event.type }, event)] : [];
    });
  };
  /** The subject's last message (read from the stream's leader), or null for a stream without events. */
  const lastOf = (subject: string) => manager.streams.getMessage(stream, { last_by_subj: subject });
  const revisionAfter = (message: StoredMsg | null) => (message === null ? NO_STREAM : batchOf(message).revision + batchOf(message).events.length - 1);
  /** The wanted events of the messages on `subject` (a wildcard for all) from sequence `seq`, one request each, up to `limit`. */
  const scan = async (subject: string, seq: number, wanted: Parameters<typeof eventsOf>[1], limit = Number.POSITIVE_INFINITY) => {
    const found: Array<RecordedEvent> = [];
    for (let next = seq; found.length < limit;) {
      const message = await manager.direct.getMessage(stream, { seq: next, next_by_subj: subject });
      if (message === null) break;
      found.push(...eventsOf(message, wanted));
      next = message.seq + 1;
    }
    return found.slice(0, limit);
  };

  const readAll: EventStoreShape["readAll"] = ({ after, limit }) =>
    Effect.tryPromise({
      try: () => scan(`${stream}.>`, Math.max(1, Math.floor(after / batchRoom)), (event) => event.globalPosition > after, limit),
      catch: readFailure(dependency),
    });

  return {
    appendToStream: (streamName, events, { expectedRevision }) =>
      Effect.gen(function* () {
        const subject = subjectOf(stream, streamName);
        if (events.length > batchRoom) return yield* unavailable(new Error(`an append holds at most ${batchRoom} events here, not ${events.length}`));
        for (;;) {
          const last = yield* Effect.tryPromise({ try: () => lastOf(subject), catch: unavailable });
          const actual = revisionAfter(last);
          const conflict = checkExpectedRevision(streamName, expectedRevision, actual);
          if (conflict) return yield* conflict;
          if (events.length === 0)
            return { nextExpectedRevision: actual, lastGlobalPosition: last === null ? 0 : last.seq * batchRoom + batchOf(last).events.length - 1 };
          const recordedAt = new Date().toISOString();
          const batch: StoredBatch = {
            revision: actual + 1,
            events: events.map((event) => ({
              eventId: event.eventId ?? randomUUID(),
              type: event.type,
              data: event.data,
              metadata: event.metadata ?? {},
              recordedAt,
            })),
          };
          const ack = yield* Effect.tryPromise({
            try: () => js.publish(subject, JSON.stringify(batch), { expect: { lastSubjectSequence: last?.seq ?? 0 } }),
            catch: (cause) => cause,
          }).pipe(
            // Another append got in since the read: read again (an "any" append then simply goes after it).
            Effect.catch((cause) =>
              cause instanceof JetStreamApiError && cause.code === JetStreamApiCodes.StreamWrongLastSequence
                ? Effect.succeed(undefined)
                : Effect.fail(unavailable(cause)),
            ),
          );
          if (ack !== undefined) return { nextExpectedRevision: actual + events.length, lastGlobalPosition: ack.seq * batchRoom + events.length - 1 };
        }
      }),
    readStream: (streamName, options) =>
      Effect.tryPromise({
        try: () => scan(subjectOf(stream, streamName), 1, (event) => event.revision >= (options?.fromRevision ?? 0)),
        catch: readFailure(dependency),
      }),
    readAll,
    headPosition: Effect.tryPromise({
      try: async () => {
        const { state } = await manager.streams.info(stream);
        if (state.last_seq === 0 || state.messages === 0) return 0;
        const last = await manager.streams.getMessage(stream, { seq: state.last_seq });
        return last === null ? 0 : last.seq * batchRoom + batchOf(last).events.length - 1;
      },
      catch: unavailable,
    }),
    follow: ({ after }) => followByPolling(readAll, after, { pollInterval }),
  };
};

/** Makes sure the stream is there at start (a server that cannot be reached stops the start); the connection is NATS's own, as the bus's. */
export const jetStreamEventStoreLayer = (options: JetStreamEventStoreOptions) =>
  Layer.effect(EventStore)(
    Effect.gen(function* () {
      const { stream } = options;
      const { manager } = yield* NatsClient;
      yield* Effect.tryPromise({
        try: async () => {
          const exists = await manager.streams.info(stream).then(
            () => true,
            (error: unknown) => (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound ? false : Promise.reject(error)),
          );
          // Events are kept for ever: no limits, no deletes, no purges.
          if (!exists) {
            await manager.streams.add({
              name: stream,
              subjects: [`${stream}.>`],
              storage: StorageType.File,
              retention: RetentionPolicy.Limits,
              allow_direct: true,
              deny_delete: true,
              deny_purge: true,
            });
          }
        },
        catch: (cause) => new DependencyUnavailable({ dependency, cause }),
      });
      return makeStore(manager, stream, options.pollInterval ?? defaultPollInterval);
    }),
  ).pipe(
    Layer.provide(
      natsConnectionLayer({
        servers: options.servers,
        ...(options.auth === undefined ? {} : { auth: options.auth }),
        name: "image-transformation-service events",
      }),
    ),
    // Named as every store's faults are, whichever step failed.
    Layer.catchTag("DependencyUnavailable", (error) => Layer.effect(EventStore)(Effect.fail(new DependencyUnavailable({ dependency, cause: error })))),
  );
