import {
  type AllStreamResolvedEvent,
  ANY,
  type AppendStreamState,
  BACKWARDS,
  END,
  excludeSystemEvents,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM as KURRENT_NO_STREAM,
  type Position,
  type ReadPosition,
  type RecordedEvent as KurrentRecordedEvent,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from "@kurrent/kurrentdb-client";
import { Effect, Layer, Stream } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { ConcurrencyConflict, EventStore, type EventStoreShape, type ExpectedRevision, NO_STREAM, type RecordedEvent } from "../../ports/event-store.ts";
import { checkExpectedRevision } from "./expected-revision.ts";
import { readFailure, storedEvent } from "./stored-event-row.ts";

export interface KurrentDbEventStoreOptions {
  /** e.g. `kurrentdb://127.0.0.1:2113?tls=false`. */
  readonly connectionString: string;
}

/*
 * Global positions. KurrentDB orders $all by a log Position { commit, prepare }: byte offsets in its
 * transaction file. Events written the current way (implicitly committed, one record per event) get
 * commit === prepare === the offset of their own record, distinct and increasing in $all order, so
 * that offset is the number global position here. Forward reads of $all from { commit: n, prepare: n }
 * start at (include) the event at n, hence the `> after` filters. Offsets stay below 2^53 (8 PiB).
 * Position 0 is never a user event (the log opens with system records), so `after: 0` reads from START.
 */
const toGlobalPosition = (position: Position): number => {
  const value = Number(position.commit);
  if (!Number.isSafeInteger(value)) throw new Error(`$all position ${position.commit} is beyond 2^53`);
  return value;
};

const toReadPosition = (after: number): ReadPosition => (after <= 0 ? START : { commit: BigInt(after), prepare: BigInt(after) });

const toStreamState = (expected: ExpectedRevision): AppendStreamState =>
  expected === "any" ? ANY : expected === NO_STREAM ? KURRENT_NO_STREAM : BigInt(expected);

/** System streams and events ($-prefixed: stats, projections' links, metadata) are KurrentDB's own, not ours. */
const isSystem = (event: KurrentRecordedEvent) => event.streamId.startsWith("$") || event.type.startsWith("$");

/** Our view of a KurrentDB event; undefined for system events. Servers since 22.6 give every event its position. */
const toRecorded = (event: KurrentRecordedEvent, position: Position | undefined): RecordedEvent | undefined => {
  if (isSystem(event)) return undefined;
  if (position === undefined) throw new Error(`event ${event.id} came without its $all position (server older than 22.6?)`);
  // A binary event, or JSON that is not an object, is no event of ours: named, never read as {}.
  // (The client gives no metadata bytes as undefined: that is empty metadata, not a damaged one.)
  return storedEvent(
    { eventId: event.id, streamName: event.streamId, revision: Number(event.revision), globalPosition: toGlobalPosition(position), type: event.type },
    { data: event.data, metadata: event.metadata ?? {}, recordedAt: event.created.toISOString() },
  );
};

const fromResolved = (resolved: AllStreamResolvedEvent) => (resolved.event === undefined ? undefined : toRecorded(resolved.event, resolved.event.position));

const DEPENDENCY = "event-store (kurrentdb)";
const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: DEPENDENCY, cause });
const readFailed = readFailure(DEPENDENCY);

export const makeKurrentDbEventStore = (client: KurrentDBClient): EventStoreShape => {
  /** The stream's last event, or the one at `fromRevision`. */
  const lastOfStream = async (streamName: string, fromRevision?: bigint) => {
    try {
      const read =
        fromRevision === undefined
          ? client.readStream(streamName, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })
          : client.readStream(streamName, { fromRevision, maxCount: 1 });
      for await (const resolved of read) {
        if (resolved.event) return { revision: Number(resolved.event.revision), position: resolved.event.position };
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return { revision: NO_STREAM, position: undefined };
  };

  const append: EventStoreShape["appendToStream"] = (streamName, events, { expectedRevision }) =>
    Effect.tryPromise({
      try: async () => {
        if (events.length === 0) {
          // Nothing to write: check the expectation against the stream's last event.
          const head = await lastOfStream(streamName);
          return (
            checkExpectedRevision(streamName, expectedRevision, head.revision) ?? {
              nextExpectedRevision: head.revision,
              lastGlobalPosition: head.position ? toGlobalPosition(head.position) : 0,
            }
          );
        }
        try {
          const result = await client.appendToStream(
            streamName,
            events.map((event) =>
              jsonEvent({
                ...(event.eventId === undefined ? {} : { id: event.eventId }),
                type: event.type,
                data: event.data,
                metadata: event.metadata ?? {},
              }),
            ),
            { streamState: toStreamState(expectedRevision) },
          );
          const nextExpectedRevision = Number(result.nextExpectedRevision);
          // The append reports one position for the whole write; for a batch, ask for the last event's own.
          const position =
            events.length === 1 && result.position !== undefined ? result.position : (await lastOfStream(streamName, result.nextExpectedRevision)).position;
          if (position === undefined) throw new Error(`no $all position for ${streamName}@${nextExpectedRevision}`);
          return { nextExpectedRevision, lastGlobalPosition: toGlobalPosition(position) };
        } catch (error) {
          if (error instanceof WrongExpectedVersionError) {
            const actual = error.actualState === KURRENT_NO_STREAM ? NO_STREAM : Math.max(NO_STREAM, Number(error.actualState));
            return new ConcurrencyConflict({ streamName, expected: expectedRevision, actual });
          }
          throw error;
        }
      },
      catch: unavailable,
    }).pipe(Effect.flatMap((outcome) => (outcome instanceof ConcurrencyConflict ? Effect.fail(outcome) : Effect.succeed(outcome))));

  return {
    appendToStream: append,
    readStream: (streamName, options) =>
      Effect.tryPromise({
        try: async () => {
          const events: Array<RecordedEvent> = [];
          try {
            for await (const resolved of client.readStream(streamName, { fromRevision: BigInt(options?.fromRevision ?? 0) })) {
              const event = resolved.event && toRecorded(resolved.event, resolved.event.position);
              if (event) events.push(event);
            }
          } catch (error) {
            if (!(error instanceof StreamNotFoundError)) throw error;
          }
          return events;
        },
        catch: readFailed,
      }),
    // Reads unfiltered pages and drops system events here, so that a short page from the server
    // reliably means the end of $all even when a whole page was system events.
    readAll: ({ after, limit }) =>
      Effect.tryPromise({
        try: async () => {
          const events: Array<RecordedEvent> = [];
          let cursor = after;
          while (events.length < limit) {
            const requested = limit - events.length + 1;
            let received = 0;
            let furthest = cursor;
            for await (const resolved of client.readAll({ fromPosition: toReadPosition(cursor), maxCount: requested })) {
              received++;
              const position = resolved.event?.position;
              if (position === undefined || toGlobalPosition(position) <= cursor) continue;
              furthest = Math.max(furthest, toGlobalPosition(position));
              const event = fromResolved(resolved);
              if (event) events.push(event);
              if (events.length === limit) break;
            }
            if (received < requested || furthest === cursor) break;
            cursor = furthest;
          }
          return events;
        },
        catch: readFailed,
      }),
    // $all ends with KurrentDB's own records as often as not: read backwards past them to our newest event.
    headPosition: Effect.tryPromise({
      try: async () => {
        let from: ReadPosition = END;
        for (;;) {
          let last: Position | undefined;
          for await (const resolved of client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: 100 })) {
            const event = resolved.event;
            if (event?.position === undefined) continue;
            if (!isSystem(event)) return toGlobalPosition(event.position);
            last = event.position;
          }
          if (last === undefined || (from !== END && last.commit === from.commit)) return 0;
          from = last;
        }
      },
      catch: unavailable,
    }),
    // KurrentDB pushes new events, so no polling: a catch-up subscription replays from `after`, then goes live.
    follow: ({ after }) =>
      Stream.unwrap(
        Effect.acquireRelease(
          Effect.sync(() => client.subscribeToAll({ fromPosition: toReadPosition(after), filter: excludeSystemEvents() })),
          (subscription) => Effect.promise(() => subscription.unsubscribe()),
        ).pipe(
          Effect.map((subscription) =>
            Stream.fromAsyncIterable(subscription as AsyncIterable<AllStreamResolvedEvent>, unavailable).pipe(
              Stream.mapEffect((resolved) => Effect.try({ try: () => fromResolved(resolved), catch: readFailed })),
              Stream.filter((event): event is RecordedEvent => event !== undefined && event.globalPosition > after),
            ),
          ),
        ),
      ),
  };
};

/** An event store on a KurrentDB server; checks the server answers at start-up and disposes the client with the layer's scope. */
export const kurrentDbEventStoreLayer = (options: KurrentDbEventStoreOptions) =>
  Layer.effect(EventStore)(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const client = KurrentDBClient.connectionString(options.connectionString);
          try {
            for await (const _ of client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })) break;
            return client;
          } catch (error) {
            await client.dispose();
            throw error;
          }
        },
        catch: unavailable,
      }),
      (client) => Effect.promise(() => client.dispose()),
    ).pipe(Effect.map(makeKurrentDbEventStore)),
  );
