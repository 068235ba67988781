import { type Duration, Effect, Option, Schedule, Stream } from "effect";
import { EventBus } from "../ports/event-bus.ts";
import type { DependencyUnavailable } from "../ports/errors.ts";
import { EventStore, type RecordedEvent } from "../ports/event-store.ts";
import type { ProjectionShape } from "../ports/projections.ts";

const PAGE = 500;

/** Applies whatever the store holds past the projection's position, a page at a time. */
export const catchUpFromStore = (projection: ProjectionShape): Effect.Effect<void, DependencyUnavailable, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    for (;;) {
      const page = yield* store.readAll({ after: yield* projection.position, limit: PAGE });
      if (page.length > 0) yield* projection.apply(page);
      if (page.length < PAGE) return;
    }
  });

/** The durable subscription a projection reads: one per projection and storage, shared by the processes that share it. */
export const durableNameOf = (projection: ProjectionShape): string => `${projection.name}-${projection.storageId}`;

export interface RunProjectionOptions {
  /**
   * Also catch up from the store this often, whatever the bus does: a projection that must never
   * lag far (the key directory: revocations within a second) then keeps up while the bus is down.
   */
  readonly storePollInterval?: Duration.Input;
}

/**
 * Keeps a projection current: from the store first (cheap when it is current; it also covers
 * events the bus no longer holds), then from the bus on its durable subscription. Runs until
 * interrupted; an unreachable bus or store is retried.
 */
export const runProjection = (projection: ProjectionShape, options: RunProjectionOptions = {}) =>
  Effect.gen(function* () {
    const bus = yield* EventBus;
    yield* catchUpFromStore(projection);
    if (options.storePollInterval !== undefined) {
      yield* catchUpFromStore(projection).pipe(
        Effect.tapError((error) => Effect.logWarning(`projection ${projection.name}: store catch-up failed`, error)),
        Effect.ignore,
        Effect.repeat(Schedule.spaced(options.storePollInterval)),
        Effect.forkScoped,
      );
    }
    return yield* bus.consume({ durable: durableNameOf(projection), category: projection.category }, (event) => projection.apply([event]));
  }).pipe(
    Effect.scoped,
    Effect.tapError((error) => Effect.logWarning(`projection ${projection.name}: bus unavailable; retrying`, error)),
    Effect.retry(Schedule.spaced("1 second")),
  );

/** Every event of the store, in order. */
const allEvents = (store: EventStore["Service"]): Stream.Stream<RecordedEvent, DependencyUnavailable> =>
  Stream.paginate(0, (after) =>
    store.readAll({ after, limit: PAGE }).pipe(
      Effect.map((page) => [page, page.length < PAGE ? Option.none<number>() : Option.some(page.at(-1)!.globalPosition)] as const),
    ),
  );

/** Rebuilds a projection from scratch by replaying the whole store; returns the position reached. */
export const rebuildProjection = (projection: ProjectionShape) =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    return yield* projection.rebuild(allEvents(store));
  });
