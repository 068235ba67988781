import { Effect, Option, Schedule, Stream } from "effect";
import type { DependencyUnavailable } from "../ports/errors.ts";
import { EventBus } from "../ports/event-bus.ts";
import { EventStore } from "../ports/event-store.ts";

export interface ForwarderOptions<R> {
  /** Where to begin on a bus that holds no checkpoint yet (a new stream: 0, all of history). */
  readonly startWithoutCheckpoint: Effect.Effect<number, DependencyUnavailable, R>;
}

/** NATS down: keep trying, a little slower each time, without reordering anything. */
const publishRetry = Schedule.min([Schedule.exponential("100 millis", 1.5), Schedule.spaced("2 seconds")]);

/**
 * The outbox forwarder. It follows the store from the bus's checkpoint and publishes every event
 * in store order, the next only once the bus has stored the last, so the bus holds the store's
 * order; after each page it moves the checkpoint. A forwarder killed between a publish and the
 * checkpoint publishes those events again when it restarts, and the bus drops them as duplicates
 * (the event id is the message id); projections skip anything they hold all the same. Several
 * instances may each run one: the first publish of an event wins and order is still kept.
 */
export const forwardEvents = <R>(options: ForwarderOptions<R>) =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const bus = yield* EventBus;
    const checkpoint = yield* bus.publishedThrough;
    const after = Option.isSome(checkpoint) ? checkpoint.value : yield* options.startWithoutCheckpoint;
    yield* Effect.logInfo(
      `event forwarder following the store after position ${after} (${Option.isSome(checkpoint) ? "the bus's checkpoint" : "no checkpoint on the bus yet"})`,
    );
    return yield* store.follow({ after }).pipe(
      Stream.runForEachArray((page) =>
        Effect.gen(function* () {
          for (const event of page) yield* bus.publish(event).pipe(Effect.retry(publishRetry));
          yield* bus.markPublishedThrough(page.at(-1)!.globalPosition).pipe(Effect.retry(publishRetry));
        }),
      ),
    );
  }).pipe(
    Effect.tapError((error) => Effect.logWarning("event forwarder stopped; restarting from its checkpoint", error)),
    Effect.retry(Schedule.spaced("1 second")),
  );
