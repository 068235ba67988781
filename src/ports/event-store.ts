import { Context, Data, type Effect, type Stream } from "effect";
import type { DependencyUnavailable } from "./errors.ts";

/**
 * The event store: streams of events with per-stream revisions and one global order.
 * Revisions are 0-based; a stream with no events is at revision NO_STREAM (-1).
 * Global positions are positive and strictly increase in append order.
 *
 * Every adapter keeps these rules, on one instance and across instances (processes) on the same
 * storage (test/contract/support/event-store-contract.ts checks each):
 * - Appends check `expectedRevision` and write all of the batch or none of it: a mismatch is
 *   ConcurrencyConflict with the stream, the expected and the actual revision; of two appends
 *   racing on one revision exactly one wins. An empty batch checks the revision and writes nothing.
 * - `"any"` never conflicts, however many instances append to the stream at once: the adapter
 *   orders such appends itself: a deadlock or serialization failure of the database's own is the
 *   adapter's to resolve (take turns, or retry), never reported as ConcurrencyConflict or
 *   DependencyUnavailable.
 * - A batch is contiguous: its events take consecutive revisions and nothing of another batch
 *   lands between them in the global order.
 * - Gap-free reads: a reader of the global order (`readAll` paged from its last position, or
 *   `follow`) never sees a position while a lower one is still to be committed. A position that
 *   is skipped and later filled would be skipped by a follower forever, so an adapter whose
 *   positions are handed out before commit (a sequence, an auto-increment key) must hold readers
 *   back until every lower position has committed or rolled back: appends that take turns (one
 *   lock held from taking positions to commit) give that at once; concurrent ones must keep
 *   readers below the lowest position still in flight.
 * - Data and metadata round-trip exactly as JSON objects at any depth (any Unicode, `\u0000`,
 *   big numbers); metadata defaults to `{}`. Stream names are exact (case, spaces, any Unicode).
 *   A supplied `eventId` is kept as given (only copies between stores supply one; the store need
 *   not check it is unique), else a unique one is given; `recordedAt` is the ISO time of the
 *   append. What an empty batch returns as `lastGlobalPosition` is not relied on.
 * - `headPosition` is the newest event's position as every instance sees it.
 * - Faults: a server or file that cannot be reached is DependencyUnavailable with dependency
 *   `event-store (<kind>)`, at start and on every operation; a stored row whose data or metadata
 *   is not a JSON object is UndecodableEvent naming it (stored-event-row.ts), never DependencyUnavailable.
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
