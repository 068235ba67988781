import { Effect, Option, Schedule, Stream } from "effect";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { EventBus, type EventBusShape } from "../../ports/event-bus.ts";
import { EventStore, type RecordedEvent } from "../../ports/event-store.ts";

export interface ForwarderOptions<R> {
  /** Where to begin on a bus that holds no checkpoint yet (a new stream: 0, all of history). */
  readonly startWithoutCheckpoint: Effect.Effect<number, DependencyUnavailable, R>;
}

/** NATS down: keep trying, a little slower each time, without reordering anything. */
const publishRetry = Schedule.min([Schedule.exponential("100 millis", 1.5), Schedule.spaced("2 seconds")]);

/**
 * Publishes an event's notice, trying again for as long as the bus is unavailable. A notice the bus
 * refuses for good is logged and skipped, so it cannot hold back the events behind it; nothing is
 * lost by that, as projections read the events from the store at the next notice.
 */
const announce = (bus: EventBusShape, event: RecordedEvent) =>
  bus.publish(event).pipe(
    Effect.retry({ schedule: publishRetry, while: (error) => error._tag === "DependencyUnavailable" }),
    Effect.catchTag("PublishRejected", (rejected) =>
      Effect.logError(
        `event forwarder: the bus refused the notice of event ${rejected.eventId.slice(0, 100)} (${event.type}, stream ${event.streamName.slice(0, 100)}) at position ${rejected.globalPosition} for good: ${rejected.reason}; skipped it (projections still read the event from the store)`,
      ),
    ),
  );

/**
 * The outbox forwarder. It follows the store from the bus's checkpoint and publishes every event's
 * notice in store order, the next only once the bus has stored the last, so the bus holds the
 * store's order; after each page it moves the checkpoint. A forwarder killed between a publish and
 * the checkpoint publishes those notices again when it restarts, and the bus drops them as
 * duplicates (the event id is the message id); projections skip anything they hold all the same.
 * Several instances may each run one: the first publish of an event wins and order is still kept.
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
          for (const event of page) yield* announce(bus, event);
          yield* bus.markPublishedThrough(page.at(-1)!.globalPosition).pipe(Effect.retry(publishRetry));
        }),
      ),
    );
  }).pipe(
    Effect.tapError((error) => Effect.logWarning("event forwarder stopped; restarting from its checkpoint", error)),
    Effect.retry(Schedule.spaced("1 second")),
  );
