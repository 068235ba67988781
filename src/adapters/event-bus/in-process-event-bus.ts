import { Deferred, type Duration, Effect, Exit, Layer, Option, Semaphore } from "effect";
import { type BusMessage, EventBus, type EventBusShape, eventCategory, type Subscription } from "../../ports/event-bus.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";

/**
 * The embedded bus: the EventBus contract inside one process, so the service runs with nothing
 * else started. It lives and dies with the process (its forwarder checkpoint too), which is why
 * the forwarder then starts from where the projections stand rather than from a stored checkpoint.
 */
export interface InProcessEventBusOptions {
  /** Messages kept, oldest dropped first (like a JetStream limit); a durable further behind skips them. */
  readonly maxMessages?: number;
  /** How long a failed event waits before it is handed over again. */
  readonly redeliveryDelay?: Duration.Input;
}

interface Durable {
  /** The next sequence to look at: everything before it is acknowledged. */
  next: number;
  category: string | undefined;
  /** Consumers sharing the durable take turns: one event at a time, in order. */
  readonly turn: Semaphore.Semaphore;
}

export const makeInProcessEventBus = (options: InProcessEventBusOptions = {}): EventBusShape => {
  const maxMessages = options.maxMessages ?? 100_000;
  const redeliveryDelay = options.redeliveryDelay ?? "200 millis";
  const messages = new Map<number, RecordedEvent>();
  const sequenceOfId = new Map<string, number>();
  let firstSequence = 1;
  let lastSequence = 0;
  let publishedThrough = Option.none<number>();
  const durables = new Map<string, Durable>();
  // Completed (and replaced) on every publish: what idle consumers wait on.
  let arrival = Deferred.makeUnsafe<void>();

  const durableFor = (subscription: Subscription): Durable => {
    const existing = durables.get(subscription.durable);
    if (existing) {
      existing.category = subscription.category;
      return existing;
    }
    const created: Durable = { next: firstSequence, category: subscription.category, turn: Semaphore.makeUnsafe(1) };
    durables.set(subscription.durable, created);
    return created;
  };

  /** The durable's next matching event; events of other categories are acknowledged in passing. */
  const nextFor = (durable: Durable): { sequence: number; event: RecordedEvent } | undefined => {
    durable.next = Math.max(durable.next, firstSequence);
    for (; durable.next <= lastSequence; durable.next++) {
      const event = messages.get(durable.next)!;
      if (durable.category === undefined || eventCategory(event.streamName) === durable.category) return { sequence: durable.next, event };
    }
    return undefined;
  };

  const deliverNext = <E, R>(durable: Durable, handle: (event: RecordedEvent, message: BusMessage) => Effect.Effect<void, E, R>) =>
    Effect.gen(function* () {
      const wake = arrival;
      const next = nextFor(durable);
      if (next === undefined) return yield* Deferred.await(wake);
      const message = { subject: `in-process.${eventCategory(next.event.streamName)}`, sequence: next.sequence };
      const exit = yield* Effect.exit(handle(structuredClone(next.event), message));
      if (Exit.isSuccess(exit)) {
        durable.next = next.sequence + 1;
        return;
      }
      yield* Effect.logWarning(`event handler failed on bus message ${next.sequence}; handing it over again`, exit.cause);
      yield* Effect.sleep(redeliveryDelay);
    });

  return {
    publish: (event) =>
      Effect.sync(() => {
        const known = sequenceOfId.get(event.eventId);
        if (known !== undefined) return { sequence: known, duplicate: true };
        const sequence = ++lastSequence;
        messages.set(sequence, structuredClone(event));
        sequenceOfId.set(event.eventId, sequence);
        for (; lastSequence - firstSequence + 1 > maxMessages; firstSequence++) {
          sequenceOfId.delete(messages.get(firstSequence)!.eventId);
          messages.delete(firstSequence);
        }
        const woken = arrival;
        arrival = Deferred.makeUnsafe<void>();
        Deferred.doneUnsafe(woken, Effect.void);
        return { sequence, duplicate: false };
      }),
    consume: (subscription, handle) =>
      Effect.suspend(() => {
        const durable = durableFor(subscription);
        return Effect.forever(deliverNext(durable, handle).pipe(Semaphore.withPermit(durable.turn)));
      }),
    deleteSubscription: (durable) => Effect.sync(() => void durables.delete(durable)),
    publishedThrough: Effect.sync(() => publishedThrough),
    markPublishedThrough: (position) =>
      Effect.sync(() => {
        publishedThrough = Option.some(
          Math.max(
            position,
            Option.getOrElse(publishedThrough, () => 0),
          ),
        );
      }),
  };
};

export const inProcessEventBusLayer = (options: InProcessEventBusOptions = {}) => Layer.sync(EventBus)(() => makeInProcessEventBus(options));
