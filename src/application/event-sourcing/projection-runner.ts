import { type Duration, Effect, Option, Schedule, Stream } from "effect";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { type BusMessage, EventBus, type EventNotice } from "../../ports/event-bus.ts";
import { EventStore, type RecordedEvent, type UndecodableEvent } from "../../ports/event-store.ts";
import type { ProjectionShape } from "../../ports/projections.ts";

const PAGE = 500;

/** Applies whatever the store holds past the projection's position, a page at a time; `seen` gets each page read. */
export const catchUpFromStore = (
  projection: ProjectionShape,
  seen: (page: ReadonlyArray<RecordedEvent>) => void = () => undefined,
): Effect.Effect<void, DependencyUnavailable | UndecodableEvent, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    for (;;) {
      const page = yield* store.readAll({ after: yield* projection.position, limit: PAGE });
      seen(page);
      if (page.length > 0) yield* projection.apply(page);
      if (page.length < PAGE) return;
    }
  });

/** The durable subscription a projection reads: one per projection and storage, shared by the processes that share it. */
export const durableNameOf = (projection: ProjectionShape): string => `${projection.name}-${projection.storageId}`;

/** Store events kept after a read, so the notices that follow are checked without reading them again. */
const REMEMBERED_EVENTS = 2 * PAGE;

/** Names a dropped message for the log: where it sat on the bus and what it claimed. */
export const droppedMessage = (message: BusMessage, claimed: EventNotice) =>
  `dropped bus message: subject ${message.subject}, sequence ${message.sequence}, claimed event ${claimed.eventId} at position ${claimed.globalPosition}`;

/**
 * How a projection takes the bus: as a notification. Whoever reaches the bus can publish on it, so
 * a notice is only a claim that the store holds that event at that position. On a claim past the
 * projection's position, the projection catches up from the store, which applies what the store
 * returns and nothing else; then the claim is compared with the store's event at its position. A
 * claim the store does not bear out (no event there, or another one) is dropped and logged: it
 * changes no row and no checkpoint, so a forged huge position cannot make later real events be
 * skipped. (A whole event in a message, as earlier versions sent, is read as its id and position.)
 */
export const makeStoreCheckedFollower = (projection: ProjectionShape) => {
  const recent = new Map<number, RecordedEvent>();
  const remember = (page: ReadonlyArray<RecordedEvent>) => {
    for (const event of page) recent.set(event.globalPosition, event);
    // A Map iterates in insertion order: the first entries are the oldest reads.
    for (const position of recent.keys()) {
      if (recent.size <= REMEMBERED_EVENTS) break;
      recent.delete(position);
    }
  };
  const catchUp = catchUpFromStore(projection, remember);

  const storedAt = (position: number) =>
    Effect.gen(function* () {
      const known = recent.get(position);
      if (known !== undefined) return Option.some(known);
      const [first] = yield* (yield* EventStore).readAll({ after: position - 1, limit: 1 });
      return first !== undefined && first.globalPosition === position ? Option.some(first) : Option.none<RecordedEvent>();
    });

  const onNotice = (claimed: EventNotice, message: BusMessage) =>
    Effect.gen(function* () {
      if (!Number.isSafeInteger(claimed.globalPosition) || claimed.globalPosition < 1) {
        return yield* Effect.logWarning(`${droppedMessage(message, claimed)}: not a store position; nothing applied`);
      }
      if (claimed.globalPosition > (yield* projection.position)) yield* catchUp;
      const stored = yield* storedAt(claimed.globalPosition);
      if (Option.isNone(stored)) {
        return yield* Effect.logWarning(`${droppedMessage(message, claimed)}: the store holds no event at that position; nothing applied`);
      }
      if (claimed.eventId !== stored.value.eventId) {
        yield* Effect.logWarning(
          `${droppedMessage(message, claimed)}: it differs from the store's event ${stored.value.eventId} (${stored.value.type}) at that position; nothing of it applied`,
        );
      }
    });

  return { catchUp, onNotice };
};

export interface RunProjectionOptions {
  /**
   * Also catch up from the store this often, whatever the bus does: a projection that must never
   * lag far (the key directory: revocations within a second) then keeps up while the bus is down.
   */
  readonly storePollInterval?: Duration.Input;
}

/**
 * Keeps a projection current: from the store first (cheap when it is current; it also covers
 * events the bus no longer holds), then on every notice from the bus on its durable subscription,
 * from the store again (see makeStoreCheckedFollower). Runs until interrupted; an unreachable bus
 * or store is retried (a notice whose store read failed comes again).
 */
export const runProjection = (projection: ProjectionShape, options: RunProjectionOptions = {}) =>
  Effect.gen(function* () {
    const bus = yield* EventBus;
    const follower = makeStoreCheckedFollower(projection);
    yield* follower.catchUp;
    if (options.storePollInterval !== undefined) {
      yield* follower.catchUp.pipe(
        Effect.tapError((error) => Effect.logWarning(`projection ${projection.name}: store catch-up failed`, error)),
        Effect.ignore,
        Effect.repeat(Schedule.spaced(options.storePollInterval)),
        Effect.forkScoped,
      );
    }
    // Every notice, not only its category's: a catch-up moves the position past the others too, so lag reads 0 when current.
    return yield* bus.consume({ durable: durableNameOf(projection) }, follower.onNotice);
  }).pipe(
    Effect.scoped,
    Effect.tapError((error) => Effect.logWarning(`projection ${projection.name}: bus unavailable; retrying`, error)),
    Effect.retry(Schedule.spaced("1 second")),
  );

/** Every event of the store, in order. */
export const allEvents = (store: EventStore["Service"]): Stream.Stream<RecordedEvent, DependencyUnavailable | UndecodableEvent> =>
  Stream.paginate(0, (after) =>
    store
      .readAll({ after, limit: PAGE })
      .pipe(Effect.map((page) => [page, page.length < PAGE ? Option.none<number>() : Option.some(page.at(-1)!.globalPosition)] as const)),
  );

/** Rebuilds a projection from scratch by replaying the whole store; returns the position reached. */
export const rebuildProjection = (projection: ProjectionShape) =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    return yield* projection.rebuild(allEvents(store));
  });
