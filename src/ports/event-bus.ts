import { Context, Data, type Effect, type Option } from "effect";
import type { DependencyUnavailable } from "./errors.ts";
import type { RecordedEvent } from "./event-store.ts";

/**
 * The bus that tells the projections (through the outbox forwarder) that the store holds new
 * events, so that reporting never runs on the request path and several instances see one sequence
 * of events. It carries notices only, an event's id and position, never its contents: no event is
 * too large for it, and the projections read the events from the store. Nor is a notice the truth:
 * whoever can reach the bus can put a message on it, so a consumer takes one as a claim ("the store
 * holds this event at this position") and applies only what the store itself returns (see
 * makeStoreCheckedFollower).
 * Every adapter keeps the rules stated on each operation below; test/contract/support/event-bus-contract.ts checks them.
 */

/** The stream's kind, its name up to the first "-" (account, quota, transformation): the bus names its subjects by it. */
export const eventCategory = (streamName: string): string => {
  const dash = streamName.indexOf("-");
  return dash > 0 ? streamName.slice(0, dash) : streamName;
};

/** What the bus carries of a recorded event: which one, and where in the store. */
export interface EventNotice {
  readonly eventId: string;
  readonly globalPosition: number;
}

export const noticeOf = (event: RecordedEvent): EventNotice => ({ eventId: event.eventId, globalPosition: event.globalPosition });

/**
 * The bus refused an event's notice for a reason that publishing it again cannot mend (the message
 * is malformed or over the bus's size limits: an event id written by hand). Nothing is lost by
 * skipping it: projections read events from the store, at the next notice.
 */
export class PublishRejected extends Data.TaggedError("PublishRejected")<{
  readonly eventId: string;
  readonly globalPosition: number;
  readonly reason: string;
  readonly cause?: unknown;
}> {}

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
   * Consumers sharing a name share its notices, one at a time, in order.
   */
  readonly durable: string;
}

export interface EventBusShape {
  /**
   * Stores the event's notice (noticeOf: never its data) after every notice published before it.
   * The event id is the message id: an id the bus already holds is a duplicate and is dropped, so
   * publishing again after a failure is safe. Fails with PublishRejected when the bus refuses this
   * notice for good, with DependencyUnavailable when trying again later may succeed.
   */
  readonly publish: (event: RecordedEvent) => Effect.Effect<Published, DependencyUnavailable | PublishRejected>;
  /**
   * Hands the subscription's notices to `handle` in bus order, one at a time; a notice is
   * acknowledged when `handle` succeeds. When it fails, the same notice comes again (after a short
   * delay) before any later one; so does one in hand when the consumer stopped (after the bus's
   * ack wait). Delivery is at least once: handlers must be idempotent. A message that is not a
   * notice is dropped (and logged), never handed over. Runs until interrupted; fails only when the
   * bus cannot be reached.
   */
  readonly consume: <E, R>(
    subscription: Subscription,
    handle: (notice: EventNotice, message: BusMessage) => Effect.Effect<void, E, R>,
  ) => Effect.Effect<never, DependencyUnavailable, R>;
  /** Forgets a durable subscription: consuming under its name starts again from the first event. */
  readonly deleteSubscription: (durable: string) => Effect.Effect<void, DependencyUnavailable>;
  /**
   * The forwarder's checkpoint: every store event up to this global position was announced (or
   * refused for good). It is
   * kept with the bus so the two cannot disagree (a new bus has none).
   */
  readonly publishedThrough: Effect.Effect<Option.Option<number>, DependencyUnavailable>;
  /** Moves the checkpoint forward; a lower position than the stored one changes nothing. */
  readonly markPublishedThrough: (position: number) => Effect.Effect<void, DependencyUnavailable>;
}

export class EventBus extends Context.Service<EventBus, EventBusShape>()("EventBus") {}
