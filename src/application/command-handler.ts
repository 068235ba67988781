import { Effect, Result, Schedule } from "effect";
import type { Decider } from "../domain/decider.ts";
import { DependencyUnavailable } from "../ports/errors.ts";
import { type ConcurrencyConflict, EventStore, type JsonObject, NO_STREAM, type UndecodableEvent } from "../ports/event-store.ts";
import { type Actor, ACTOR_METADATA_KEY } from "./actor.ts";
import { CommandRejected } from "./errors.ts";
import type { EventCodec } from "./events/event-codec.ts";
import { StreamLocks } from "./stream-locks.ts";
import { StreamStateCache } from "./stream-state-cache.ts";

/** Domain events are `{ type, data }` records; the store keeps `data` as JSON. */
export interface DomainEvent {
  readonly type: string;
  readonly data: object;
}

/** A kind of stream: the decider that owns it and the codec of its events as stored. */
export interface StreamType<Command, Event extends DomainEvent, State> {
  readonly decider: Decider<Command, Event, State>;
  readonly codec: EventCodec<Event>;
}

/** What travels with every event a command appends: who acted, and the request it served, if any. */
export interface CommandContext {
  readonly actor: Actor;
  readonly requestId?: string;
}

export interface Loaded<State> {
  readonly state: State;
  readonly revision: number;
}

export interface Handled<Event, State> extends Loaded<State> {
  readonly events: ReadonlyArray<Event>;
}

/** One cache entry per decider and stream; deciders are few, long-lived objects. */
const deciderIds = new WeakMap<object, number>();
let lastDeciderId = 0;
const cacheKey = (decider: object, streamName: string): string => {
  let id = deciderIds.get(decider);
  if (id === undefined) deciderIds.set(decider, (id = ++lastDeciderId));
  return `${id}:${streamName}`;
};

const metadataOf = (context: CommandContext): JsonObject =>
  context.requestId === undefined ? { [ACTOR_METADATA_KEY]: context.actor } : { [ACTOR_METADATA_KEY]: context.actor, requestId: context.requestId };

export const loadState = <Command, Event extends DomainEvent, State>(
  { decider, codec }: StreamType<Command, Event, State>,
  streamName: string,
): Effect.Effect<Loaded<State>, DependencyUnavailable | UndecodableEvent, EventStore | StreamStateCache> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const cache = yield* StreamStateCache;
    const key = cacheKey(decider, streamName);
    const cached = cache.get(key);
    let state = cached ? (cached.state as State) : decider.initialState();
    let revision = cached ? cached.revision : NO_STREAM;
    for (const recorded of yield* store.readStream(streamName, { fromRevision: revision + 1 })) {
      const decoded = codec.decodeResult(recorded);
      if (Result.isFailure(decoded)) return yield* Effect.fail(decoded.failure);
      state = decider.evolve(state, decoded.success);
      revision = recorded.streamRevision;
    }
    cache.set(key, { state, revision });
    return { state, revision };
  });

const decideAndAppend = <Command, Event extends DomainEvent, State>(
  streamType: StreamType<Command, Event, State>,
  streamName: string,
  command: Command,
  context: CommandContext,
): Effect.Effect<Handled<Event, State>, CommandRejected | ConcurrencyConflict | DependencyUnavailable | UndecodableEvent, EventStore | StreamStateCache> =>
  Effect.gen(function* () {
    const { decider, codec } = streamType;
    const store = yield* EventStore;
    const { state, revision } = yield* loadState(streamType, streamName);
    const decision = decider.decide(command, state);
    if (!decision.ok) return yield* new CommandRejected(decision.rejection);
    if (decision.events.length === 0) return { state, revision, events: [] };
    const metadata = metadataOf(context);
    const appended = yield* store.appendToStream(
      streamName,
      decision.events.map((event) => codec.encode(event, metadata)),
      { expectedRevision: revision },
    );
    const next = { state: decision.events.reduce(decider.evolve, state), revision: appended.nextExpectedRevision };
    (yield* StreamStateCache).set(cacheKey(decider, streamName), next);
    return { ...next, events: decision.events };
  });

/**
 * Load, decide, append with the expected revision; on a conflict another writer got there
 * first, so decide again on the fresh state. Every event appended records who acted (`context`).
 * This process's commands on one stream take turns (StreamLocks); only other processes race.
 */
export const handleCommand = <Command, Event extends DomainEvent, State>(
  streamType: StreamType<Command, Event, State>,
  streamName: string,
  command: Command,
  context: CommandContext,
): Effect.Effect<Handled<Event, State>, CommandRejected | DependencyUnavailable | UndecodableEvent, EventStore | StreamStateCache | StreamLocks> =>
  Effect.gen(function* () {
    const { withLock } = yield* StreamLocks;
    return yield* withLock(streamName)(decideAndAppend(streamType, streamName, command, context));
  }).pipe(
    Effect.retry({
      while: (error) => error._tag === "ConcurrencyConflict",
      times: 100,
      schedule: Schedule.spaced("2 millis").pipe(Schedule.jittered),
    }),
    // After 100 lost races the stream is hot beyond reason: report it as unavailable, not a crash.
    Effect.catchTag("ConcurrencyConflict", (conflict) =>
      Effect.fail(new DependencyUnavailable({ dependency: "event store (write contention)", cause: conflict })),
    ),
  );
