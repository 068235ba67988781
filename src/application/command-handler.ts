import { Effect, Schedule, Semaphore } from "effect";
import type { Decider } from "../domain/decider.ts";
import { DependencyUnavailable } from "../ports/errors.ts";
import { EventStore, type EventStoreShape, NO_STREAM, type JsonObject } from "../ports/event-store.ts";
import { CommandRejected } from "./errors.ts";

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

/** Events we wrote ourselves come back as the same shape; the cast is that round trip. */
const asDomainEvent = <Event extends DomainEvent>(recorded: { type: string; data: JsonObject }): Event =>
  ({ type: recorded.type, data: recorded.data }) as unknown as Event;

/**
 * What this process remembers per event-store instance: the state it last loaded of recently used
 * streams, so that a load reads only the events appended since (a month's quota ledger grows with
 * every request), and a lock per stream, so that its own commands on a hot stream (one account's
 * ledger) take turns instead of racing each other and re-reading on every lost race. Races with
 * other processes remain; the expected revision settles those. Streams only grow and states are
 * immutable, so a remembered state plus the newer events is always the current state.
 */
interface Remembered {
  readonly decider: unknown;
  readonly loaded: Loaded<unknown>;
}
interface StreamMemory {
  readonly states: Map<string, Remembered>;
  readonly locks: Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>;
}

/** Enough for every account active in a period; the least recently used go first. */
const REMEMBERED_STREAMS = 10_000;
const memories = new WeakMap<EventStoreShape, StreamMemory>();

const memoryOf = (store: EventStoreShape): StreamMemory => {
  let memory = memories.get(store);
  if (memory === undefined) memories.set(store, (memory = { states: new Map(), locks: new Map() }));
  return memory;
};

const remember = (memory: StreamMemory, decider: unknown, streamName: string, loaded: Loaded<unknown>): void => {
  memory.states.delete(streamName);
  memory.states.set(streamName, { decider, loaded });
  if (memory.states.size > REMEMBERED_STREAMS) memory.states.delete(memory.states.keys().next().value!);
};

const load = <Command, Event extends DomainEvent, State>(
  store: EventStoreShape,
  decider: Decider<Command, Event, State>,
  streamName: string,
): Effect.Effect<Loaded<State>, DependencyUnavailable> =>
  Effect.gen(function* () {
    const memory = memoryOf(store);
    const remembered = memory.states.get(streamName);
    const known = remembered?.decider === decider ? (remembered.loaded as Loaded<State>) : undefined;
    let state = known?.state ?? decider.initialState();
    let revision = known?.revision ?? NO_STREAM;
    for (const event of yield* store.readStream(streamName, { fromRevision: revision + 1 })) {
      state = decider.evolve(state, asDomainEvent<Event>(event));
      revision = event.streamRevision;
    }
    remember(memory, decider, streamName, { state, revision });
    return { state, revision };
  });

/** Runs `effect` while holding this process's lock on the stream; a lock nobody waits for is dropped. */
const withStreamLock = <A, E, R>(store: EventStoreShape, streamName: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const { locks } = memoryOf(store);
    let lock = locks.get(streamName);
    if (lock === undefined) locks.set(streamName, (lock = { semaphore: Semaphore.makeUnsafe(1), users: 0 }));
    const held = lock;
    held.users++;
    return held.semaphore.withPermit(effect).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          if (--held.users === 0) locks.delete(streamName);
        }),
      ),
    );
  });

export const loadState = <Command, Event extends DomainEvent, State>(
  decider: Decider<Command, Event, State>,
  streamName: string,
): Effect.Effect<Loaded<State>, DependencyUnavailable, EventStore> =>
  Effect.gen(function* () {
    return yield* load(yield* EventStore, decider, streamName);
  });

const decideAndAppend = <Command, Event extends DomainEvent, State>(
  store: EventStoreShape,
  decider: Decider<Command, Event, State>,
  streamName: string,
  command: Command,
  metadata: JsonObject,
) =>
  Effect.gen(function* () {
    const { state, revision } = yield* load(store, decider, streamName);
    const decision = decider.decide(command, state);
    if (!decision.ok) return yield* new CommandRejected(decision.rejection);
    if (decision.events.length === 0) return { state, revision, events: [] };
    const appended = yield* store.appendToStream(
      streamName,
      decision.events.map((event) => ({ type: event.type, data: event.data as JsonObject, metadata })),
      { expectedRevision: revision },
    );
    const next = { state: decision.events.reduce(decider.evolve, state), revision: appended.nextExpectedRevision };
    remember(memoryOf(store), decider, streamName, next);
    return { ...next, events: decision.events };
  });

/**
 * Load, decide, append with the expected revision; on a conflict another writer got there
 * first, so decide again on the fresh state. `metadata` travels with every event appended.
 */
export const handleCommand = <Command, Event extends DomainEvent, State>(
  decider: Decider<Command, Event, State>,
  streamName: string,
  command: Command,
  metadata: JsonObject = {},
): Effect.Effect<Handled<Event, State>, CommandRejected | DependencyUnavailable, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    return yield* withStreamLock(store, streamName, decideAndAppend(store, decider, streamName, command, metadata));
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
