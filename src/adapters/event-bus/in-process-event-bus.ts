import { Deferred, type Duration, Effect, Exit, Layer, Option, Semaphore } from "effect";
import { type BusMessage, EventBus, type EventBusShape, eventCategory, type EventNotice, noticeOf, type Subscription } from "../../ports/event-bus.ts";

/**
 * The embedded bus: the EventBus contract inside one process (notices only, like JetStream), so the service runs with nothing
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
  /** Consumers sharing the durable take turns: one notice at a time, in order. */
  readonly turn: Semaphore.Semaphore;
}

/** A notice as the bus keeps it: with its subject's category, as JetStream has it. */
interface Message {
  readonly notice: EventNotice;
  readonly category: string;
}

export const makeInProcessEventBus = (options: InProcessEventBusOptions = {}): EventBusShape => {
  const maxMessages = options.maxMessages ?? 100_000;
  const redeliveryDelay = options.redeliveryDelay ?? "200 millis";
  const messages = new Map<number, Message>();
  const sequenceOfId = new Map<string, number>();
  let firstSequence = 1;
  let lastSequence = 0;
  let publishedThrough = Option.none<number>();
  const durables = new Map<string, Durable>();
  // Completed (and replaced) on every publish: what idle consumers wait on.
  let arrival = Deferred.makeUnsafe<void>();

  const durableFor = (subscription: Subscription): Durable => {
    const existing = durables.get(subscription.durable);
    if (existing) return existing;
    const created: Durable = { next: firstSequence, turn: Semaphore.makeUnsafe(1) };
    durables.set(subscription.durable, created);
    return created;
  };

  const deliverNext = <E, R>(durable: Durable, handle: (notice: EventNotice, message: BusMessage) => Effect.Effect<void, E, R>) =>
    Effect.gen(function* () {
      const wake = arrival;
      durable.next = Math.max(durable.next, firstSequence);
      const next = messages.get(durable.next);
      if (next === undefined) return yield* Deferred.await(wake);
      const message = { subject: `in-process.${next.category}`, sequence: durable.next };
      const exit = yield* Effect.exit(handle({ ...next.notice }, message));
      if (Exit.isSuccess(exit)) {
        durable.next = message.sequence + 1;
        return;
      }
      yield* Effect.logWarning(`notice handler failed on bus message ${message.sequence}; handing it over again`, exit.cause);
      yield* Effect.sleep(redeliveryDelay);
    });

  return {
    publish: (event) =>
      Effect.sync(() => {
        const known = sequenceOfId.get(event.eventId);
        if (known !== undefined) return { sequence: known, duplicate: true };
        const sequence = ++lastSequence;
        messages.set(sequence, { notice: noticeOf(event), category: eventCategory(event.streamName) });
        sequenceOfId.set(event.eventId, sequence);
        for (; lastSequence - firstSequence + 1 > maxMessages; firstSequence++) {
          sequenceOfId.delete(messages.get(firstSequence)!.notice.eventId);
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
