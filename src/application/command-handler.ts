import { Effect, Schedule } from "effect";
import type { Decider } from "../domain/decider.ts";
import { DependencyUnavailable } from "../ports/errors.ts";
import { EventStore, NO_STREAM, type JsonObject } from "../ports/event-store.ts";
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

export const loadState = <Command, Event extends DomainEvent, State>(
  decider: Decider<Command, Event, State>,
  streamName: string,
): Effect.Effect<Loaded<State>, DependencyUnavailable, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const recorded = yield* store.readStream(streamName);
    let state = decider.initialState();
    for (const event of recorded) state = decider.evolve(state, asDomainEvent<Event>(event));
    return { state, revision: recorded.length === 0 ? NO_STREAM : recorded[recorded.length - 1]!.streamRevision };
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
    const { state, revision } = yield* loadState(decider, streamName);
    const decision = decider.decide(command, state);
    if (!decision.ok) return yield* new CommandRejected(decision.rejection);
    if (decision.events.length === 0) return { state, revision, events: [] };
    const appended = yield* store.appendToStream(
      streamName,
      decision.events.map((event) => ({ type: event.type, data: event.data as JsonObject, metadata })),
      { expectedRevision: revision },
    );
    return {
      state: decision.events.reduce(decider.evolve, state),
      revision: appended.nextExpectedRevision,
      events: decision.events,
    };
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
