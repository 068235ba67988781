import { Effect, Schedule } from "effect";
import type { Decider } from "../domain/decider.ts";
import { DependencyUnavailable } from "../ports/errors.ts";
import { type ConcurrencyConflict, EventStore, NO_STREAM, type JsonObject } from "../ports/event-store.ts";
import { CommandRejected } from "./errors.ts";
import { StreamLocks } from "./stream-locks.ts";
import { StreamStateCache } from "./stream-state-cache.ts";

/** Domain events are `{ type, data }` records; the store keeps `data` as JSON. */
export interface DomainEvent {
  readonly type: string;
  readonly data: object;
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

/** Events we wrote ourselves come back as the same shape; the cast is that round trip. */
const asDomainEvent = <Event extends DomainEvent>(recorded: { type: string; data: JsonObject }): Event =>
  ({ type: recorded.type, data: recorded.data }) as unknown as Event;

export const loadState = <Command, Event extends DomainEvent, State>(
  decider: Decider<Command, Event, State>,
  streamName: string,
): Effect.Effect<Loaded<State>, DependencyUnavailable, EventStore | StreamStateCache> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const cache = yield* StreamStateCache;
    const key = cacheKey(decider, streamName);
    const cached = cache.get(key);
    let state = cached ? (cached.state as State) : decider.initialState();
    let revision = cached ? cached.revision : NO_STREAM;
    for (const event of yield* store.readStream(streamName, { fromRevision: revision + 1 })) {
      state = decider.evolve(state, asDomainEvent<Event>(event));
      revision = event.streamRevision;
    }
    cache.set(key, { state, revision });
    return { state, revision };
  });

const decideAndAppend = <Command, Event extends DomainEvent, State>(
  decider: Decider<Command, Event, State>,
  streamName: string,
  command: Command,
  metadata: JsonObject,
): Effect.Effect<Handled<Event, State>, CommandRejected | ConcurrencyConflict | DependencyUnavailable, EventStore | StreamStateCache> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const { state, revision } = yield* loadState(decider, streamName);
    const decision = decider.decide(command, state);
    if (!decision.ok) return yield* new CommandRejected(decision.rejection);
    if (decision.events.length === 0) return { state, revision, events: [] };
    const appended = yield* store.appendToStream(
      streamName,
      decision.events.map((event) => ({ type: event.type, data: event.data as JsonObject, metadata })),
      { expectedRevision: revision },
    );
    const next = { state: decision.events.reduce(decider.evolve, state), revision: appended.nextExpectedRevision };
    (yield* StreamStateCache).set(cacheKey(decider, streamName), next);
    return { ...next, events: decision.events };
  });

/**
 * Load, decide, append with the expected revision; on a conflict another writer got there
 * first, so decide again on the fresh state. `metadata` travels with every event appended.
 * This process's commands on one stream take turns (StreamLocks); only other processes race.
 */
export const handleCommand = <Command, Event extends DomainEvent, State>(
  decider: Decider<Command, Event, State>,
  streamName: string,
  command: Command,
  metadata: JsonObject = {},
): Effect.Effect<Handled<Event, State>, CommandRejected | DependencyUnavailable, EventStore | StreamStateCache | StreamLocks> =>
  Effect.gen(function* () {
    const { withLock } = yield* StreamLocks;
    return yield* withLock(streamName)(decideAndAppend(decider, streamName, command, metadata));
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
