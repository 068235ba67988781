import { Context, Effect, Result, Schedule } from "effect";
import type { Decider } from "../../domain/decider.ts";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { type ConcurrencyConflict, EventStore, type JsonObject, type NewEvent, NO_STREAM, type UndecodableEvent } from "../../ports/event-store.ts";
import { type Actor, ACTOR_METADATA_KEY } from "../access/actor.ts";
import { CommandRejected } from "../errors.ts";
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

/**
 * A stream's state: the cached one brought up to date by the events after it. Written as one read
 * of the fiber's services and one step after the store's read, not a generator: every keyed
 * request loads a state, and under load each nested step cost a visible share of its CPU.
 */
export const loadState = <Command, Event extends DomainEvent, State>(
  { decider, codec }: StreamType<Command, Event, State>,
  streamName: string,
): Effect.Effect<Loaded<State>, DependencyUnavailable | UndecodableEvent, EventStore | StreamStateCache> =>
  Effect.contextWith((services: Context.Context<EventStore | StreamStateCache>) => {
    const cache = Context.get(services, StreamStateCache);
    const key = cacheKey(decider, streamName);
    const cached = cache.get(key);
    const from: Loaded<State> = cached ? { state: cached.state as State, revision: cached.revision } : { state: decider.initialState(), revision: NO_STREAM };
    return Effect.flatMap(Context.get(services, EventStore).readStream(streamName, { fromRevision: from.revision + 1 }), (recorded) => {
      // Nothing new: the entry the cache holds is still this one (and `get` made it the most recent).
      if (recorded.length === 0 && cached !== undefined) return Effect.succeed(from);
      let { state } = from;
      for (const event of recorded) {
        const decoded = codec.decodeResult(event);
        if (Result.isFailure(decoded)) return Effect.fail(decoded.failure);
        state = decider.evolve(state, decoded.success);
      }
      const loaded = { state, revision: recorded.at(-1)?.streamRevision ?? from.revision };
      cache.set(key, loaded);
      return Effect.succeed(loaded);
    });
  });

/** A command waiting for its stream's turn, with the context its events record. */
interface Waiting<Command> {
  readonly command: Command;
  readonly context: CommandContext;
}

/**
 * Load, then decide the waiting commands one after the other, each on the state the ones before it
 * left (exactly as if each had its own turn), and append all their events in one append with the
 * expected revision: one commit for them all. A rejected command appends nothing and changes no
 * state for the ones after it. Each command gets its own events and the state and revision after them.
 */
const decideTogether = <Command, Event extends DomainEvent, State>(
  streamType: StreamType<Command, Event, State>,
  streamName: string,
  waiting: ReadonlyArray<Waiting<Command>>,
): Effect.Effect<
  ReadonlyArray<Result.Result<Handled<Event, State>, CommandRejected>>,
  ConcurrencyConflict | DependencyUnavailable | UndecodableEvent,
  EventStore | StreamStateCache
> =>
  Effect.gen(function* () {
    const { decider, codec } = streamType;
    const loaded = yield* loadState(streamType, streamName);
    let state = loaded.state;
    const encoded: Array<NewEvent> = [];
    const decided = waiting.map(({ command, context }): Result.Result<{ state: State; events: ReadonlyArray<Event>; through: number }, CommandRejected> => {
      const decision = decider.decide(command, state);
      if (!decision.ok) return Result.fail(new CommandRejected(decision.rejection));
      state = decision.events.reduce(decider.evolve, state);
      const metadata = metadataOf(context);
      encoded.push(...decision.events.map((event) => codec.encode(event, metadata)));
      return Result.succeed({ state, events: decision.events, through: encoded.length });
    });
    if (encoded.length === 0) return decided.map((outcome) => Result.map(outcome, ({ state, events }) => ({ state, events, revision: loaded.revision })));
    const appended = yield* (yield* EventStore).appendToStream(streamName, encoded, { expectedRevision: loaded.revision });
    (yield* StreamStateCache).set(cacheKey(decider, streamName), { state, revision: appended.nextExpectedRevision });
    return decided.map((outcome) => Result.map(outcome, ({ state, events, through }) => ({ state, events, revision: loaded.revision + through })));
  });

/**
 * Load, decide, append with the expected revision; on a conflict another writer got there
 * first, so decide again on the fresh state. Every event appended records who acted (`context`).
 * This process's commands on one stream take turns, and the commands that wait for a turn are
 * decided and appended together (StreamLocks); only other processes race.
 */
export const handleCommand = <Command, Event extends DomainEvent, State>(
  streamType: StreamType<Command, Event, State>,
  streamName: string,
  command: Command,
  context: CommandContext,
): Effect.Effect<Handled<Event, State>, CommandRejected | DependencyUnavailable | UndecodableEvent, EventStore | StreamStateCache | StreamLocks> =>
  Effect.gen(function* () {
    const { together } = yield* StreamLocks;
    const run = (waiting: ReadonlyArray<Waiting<Command>>) =>
      decideTogether(streamType, streamName, waiting).pipe(
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
    return yield* Effect.fromResult(yield* together(cacheKey(streamType.decider, streamName), { command, context }, run));
  });
