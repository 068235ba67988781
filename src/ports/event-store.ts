import { Context, Data, type Effect, type Stream } from "effect";
import type { DependencyUnavailable } from "./errors.ts";

/**
 * The event store: streams of events with per-stream revisions and one global order.
 * Revisions are 0-based; a stream with no events is at revision NO_STREAM (-1).
 * Global positions are positive and strictly increase in append order.
 */
export const NO_STREAM = -1;

export type JsonValue = string | number | boolean | null | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue };
export type JsonObject = { readonly [key: string]: JsonValue };

export interface NewEvent {
  /** Set only to keep an event's identity when copying it from another store; otherwise the store assigns one. */
  readonly eventId?: string;
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata?: JsonObject;
}

export interface RecordedEvent {
  readonly eventId: string;
  readonly streamName: string;
  readonly streamRevision: number;
  readonly globalPosition: number;
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
  readonly recordedAt: string;
}

/** A revision the stream must be at, or "any" to skip the check. */
export type ExpectedRevision = number | "any";

export interface AppendResult {
  readonly nextExpectedRevision: number;
  readonly lastGlobalPosition: number;
}

export class ConcurrencyConflict extends Data.TaggedError("ConcurrencyConflict")<{
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  readonly actual: number;
}> {}

export interface EventStoreShape {
  readonly appendToStream: (
    streamName: string,
    events: ReadonlyArray<NewEvent>,
    options: { readonly expectedRevision: ExpectedRevision },
  ) => Effect.Effect<AppendResult, ConcurrencyConflict | DependencyUnavailable>;
  /** Events of one stream in order, from `fromRevision` (inclusive, default 0). */
  readonly readStream: (streamName: string, options?: { readonly fromRevision?: number }) => Effect.Effect<ReadonlyArray<RecordedEvent>, DependencyUnavailable>;
  /** Up to `limit` events of all streams with a global position greater than `after`. */
  readonly readAll: (options: { readonly after: number; readonly limit: number }) => Effect.Effect<ReadonlyArray<RecordedEvent>, DependencyUnavailable>;
  /** Every event after `after`, then each new one as it is appended (by any process). */
  readonly follow: (options: { readonly after: number }) => Stream.Stream<RecordedEvent, DependencyUnavailable>;
}

export class EventStore extends Context.Service<EventStore, EventStoreShape>()("EventStore") {}
