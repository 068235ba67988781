import { Effect } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { ConcurrencyConflict, type EventStoreShape, type ExpectedRevision, type NewEvent, NO_STREAM, type UndecodableEvent } from "../../ports/event-store.ts";
import { CHAIN_METADATA_KEY, chainLinkOf, chainText, GENESIS } from "./event-chain.ts";

export interface ChainedEventStoreOptions {
  /** HMAC under the event-chain key (ChainCrypto.mac). */
  readonly mac: (text: string) => string;
  /** Event ids are part of what the mac covers, so they are drawn here rather than by the store. */
  readonly newEventId: () => string;
  /** Stream heads remembered, so that an append does not first read its predecessor. */
  readonly headCacheSize?: number;
}

interface Head {
  readonly revision: number;
  readonly mac: string;
}

/**
 * Any event store, with every appended event linked into its stream's hash chain (event-chain.ts).
 * The link needs the predecessor's mac: an append at expected revision r uses the mac of the event
 * at r, which the append's own revision check guarantees is still the stream's head when it lands.
 * So appends stay exactly as concurrent as the store underneath; a head this process appended is
 * remembered, and only a stream another process moved costs one extra read of one event.
 * Reads pass through unchanged: the audit verifies chains, readers decode (events/*).
 */
export const chainedEventStore = (inner: EventStoreShape, options: ChainedEventStoreOptions): EventStoreShape => {
  const capacity = options.headCacheSize ?? 10_000;
  const heads = new Map<string, Head>();
  const remember = (streamName: string, head: Head) => {
    heads.delete(streamName);
    heads.set(streamName, head);
    if (heads.size > capacity) heads.delete(heads.keys().next().value!);
  };

  /** The mac of the event at `revision` (GENESIS before the first event, or for an event written before chaining). */
  const macAt = (streamName: string, revision: number): Effect.Effect<string, DependencyUnavailable> => {
    if (revision === NO_STREAM) return Effect.succeed(GENESIS);
    const known = heads.get(streamName);
    if (known?.revision === revision) return Effect.succeed(known.mac);
    return inner.readStream(streamName, { fromRevision: revision }).pipe(
      Effect.map((events) => {
        const event = events[0];
        return event?.streamRevision === revision ? (chainLinkOf(event.metadata)?.mac ?? GENESIS) : GENESIS;
      }),
      Effect.catchTag("UndecodableEvent", cannotLink),
    );
  };

  /** A head that cannot be read cannot be linked to: the stream takes no appends until the row is repaired (itsctl audit names it). */
  const cannotLink = (unreadable: UndecodableEvent) => Effect.fail(new DependencyUnavailable({ dependency: "event store: a stream head", cause: unreadable }));

  const link = (streamName: string, after: number, prev: string, events: ReadonlyArray<NewEvent>) => {
    let previous = prev;
    const linked = events.map((event, index): NewEvent => {
      const revision = after + 1 + index;
      const eventId = event.eventId ?? options.newEventId();
      const content = { eventId, type: event.type, data: event.data, metadata: event.metadata ?? {} };
      const mac = options.mac(chainText(streamName, revision, content, previous));
      const linked = { ...content, metadata: { ...content.metadata, [CHAIN_METADATA_KEY]: { revision, prev: previous, mac } } };
      previous = mac;
      return linked;
    });
    return { linked, lastMac: previous };
  };

  const appendAt = (streamName: string, events: ReadonlyArray<NewEvent>, expectedRevision: number) =>
    Effect.gen(function* () {
      const { linked, lastMac } = link(streamName, expectedRevision, yield* macAt(streamName, expectedRevision), events);
      const result = yield* inner
        .appendToStream(streamName, linked, { expectedRevision })
        .pipe(Effect.tapError(() => Effect.sync(() => heads.delete(streamName))));
      remember(streamName, { revision: result.nextExpectedRevision, mac: lastMac });
      return result;
    });

  /** "any": link onto the head as read, and try again should another writer move it meanwhile. */
  const appendAnywhere = (streamName: string, events: ReadonlyArray<NewEvent>) =>
    Effect.gen(function* () {
      const known = heads.get(streamName)?.revision ?? 0;
      const readFrom = (fromRevision: number) => inner.readStream(streamName, { fromRevision }).pipe(Effect.catchTag("UndecodableEvent", cannotLink));
      const tail = yield* readFrom(Math.max(known, 0));
      const head = tail.at(-1)?.streamRevision ?? (known > 0 ? (yield* readFrom(0)).at(-1)?.streamRevision : undefined);
      return yield* appendAt(streamName, events, head ?? NO_STREAM);
    }).pipe(Effect.retry({ while: (error) => error instanceof ConcurrencyConflict, times: 100 }));

  return {
    ...inner,
    appendToStream: (streamName, events, { expectedRevision }: { readonly expectedRevision: ExpectedRevision }) => {
      if (events.length === 0) return inner.appendToStream(streamName, events, { expectedRevision });
      return expectedRevision === "any" ? appendAnywhere(streamName, events) : appendAt(streamName, events, expectedRevision);
    },
  };
};
