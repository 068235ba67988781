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

/**
 * A stored event that cannot be read as what it claims to be, named by stream and revision: a row
 * whose data or metadata is not a JSON object (found by the store adapter), or whose data no
 * upcaster and no Schema of its stream can read (found by the stream's codec). Events outlive the
 * code that wrote them, and rows can be changed by hand: such a row is reported, never cast.
 */
export class UndecodableEvent extends Data.TaggedError("UndecodableEvent")<{
  readonly streamName: string;
  readonly revision: number;
  readonly globalPosition: number;
  readonly eventId: string;
  readonly type: string;
  readonly problem: string;
}> {
  override get message(): string {
    return `event ${this.revision} of stream ${this.streamName} (${this.type}, id ${this.eventId}, position ${this.globalPosition}) does not decode: ${this.problem}`;
  }
}

export interface EventStoreShape {
  readonly appendToStream: (
    streamName: string,
    events: ReadonlyArray<NewEvent>,
    options: { readonly expectedRevision: ExpectedRevision },
  ) => Effect.Effect<AppendResult, ConcurrencyConflict | DependencyUnavailable>;
  /** Events of one stream in order, from `fromRevision` (inclusive, default 0). */
  readonly readStream: (
    streamName: string,
    options?: { readonly fromRevision?: number },
  ) => Effect.Effect<ReadonlyArray<RecordedEvent>, DependencyUnavailable | UndecodableEvent>;
  /** Up to `limit` events of all streams with a global position greater than `after`. */
  readonly readAll: (options: {
    readonly after: number;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<RecordedEvent>, DependencyUnavailable | UndecodableEvent>;
  /**
   * The global position of the newest event; 0 while the store is empty. Read without reading
   * events, so the distance to any checkpoint is cheap to know however far behind it is.
   */
  readonly headPosition: Effect.Effect<number, DependencyUnavailable>;
  /** Every event after `after`, then each new one as it is appended (by any process). */
  readonly follow: (options: { readonly after: number }) => Stream.Stream<RecordedEvent, DependencyUnavailable | UndecodableEvent>;
}

export class EventStore extends Context.Service<EventStore, EventStoreShape>()("EventStore") {}
