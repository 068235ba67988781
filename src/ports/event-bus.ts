import { Context, type Effect, type Option } from "effect";
import type { DependencyUnavailable } from "./errors.ts";
import type { RecordedEvent } from "./event-store.ts";

/**
 * The bus that carries recorded events from the store (through the outbox forwarder) to the
 * projections, so that reporting never runs on the request path and several instances see one
 * sequence of events. It is a notification, not a source of truth: whoever can reach it can put a
 * message on it, so a consumer takes an event it delivers as a claim ("the store holds this event
 * at this position") and applies only what the store itself returns (see bus-notice.ts).
 */

/** What a subscription may filter on: the stream's kind, its name up to the first "-" (account, quota, transformation). */
export const eventCategory = (streamName: string): string => {
  const dash = streamName.indexOf("-");
  return dash > 0 ? streamName.slice(0, dash) : streamName;
};

export interface Published {
  /** The event's place on the bus. */
  readonly sequence: number;
  /** The bus already held this event id: nothing was added. */
  readonly duplicate: boolean;
}

/** Where a delivered event sat on the bus: what a log line names when the event is dropped. */
export interface BusMessage {
  readonly subject: string;
  /** The message's place on the bus (not the event's global position). */
  readonly sequence: number;
}

export interface Subscription {
  /**
   * The bus remembers what this name acknowledged: consuming under it again resumes after that.
   * Consumers sharing a name share its events, one at a time, in order.
   */
  readonly durable: string;
  /** Only events of this category (see eventCategory); every event when absent. */
  readonly category?: string;
}

export interface EventBusShape {
  /**
   * Stores an event after every event published before it. The event id is the message id: an id
   * the bus already holds is a duplicate and is dropped, so publishing again after a failure is safe.
   */
  readonly publish: (event: RecordedEvent) => Effect.Effect<Published, DependencyUnavailable>;
  /**
   * Hands the subscription's events to `handle` in bus order, one at a time; an event is
   * acknowledged when `handle` succeeds. When it fails, the same event comes again (after a short
   * delay) before any later one; so does one in hand when the consumer stopped (after the bus's
   * ack wait). Delivery is at least once: handlers must be idempotent. A message that is not an
   * event, or that another store's forwarder published, is dropped (and logged), never handed over.
   * Runs until interrupted; fails only when the bus cannot be reached.
   */
  readonly consume: <E, R>(
    subscription: Subscription,
    handle: (event: RecordedEvent, message: BusMessage) => Effect.Effect<void, E, R>,
  ) => Effect.Effect<never, DependencyUnavailable, R>;
  /** Forgets a durable subscription: consuming under its name starts again from the first event. */
  readonly deleteSubscription: (durable: string) => Effect.Effect<void, DependencyUnavailable>;
  /**
   * The forwarder's checkpoint: every store event up to this global position is on the bus. It is
   * kept with the bus so the two cannot disagree (a new bus has none).
   */
  readonly publishedThrough: Effect.Effect<Option.Option<number>, DependencyUnavailable>;
  /** Moves the checkpoint forward; a lower position than the stored one changes nothing. */
  readonly markPublishedThrough: (position: number) => Effect.Effect<void, DependencyUnavailable>;
}

export class EventBus extends Context.Service<EventBus, EventBusShape>()("EventBus") {}
