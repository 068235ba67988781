import { DependencyUnavailable } from "../../ports/errors.ts";
import { type JsonObject, type JsonValue, type RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";

/** Which stored event a column belongs to, for the error that names it. */
export interface StoredEventIdentity {
  readonly streamName: string;
  readonly revision: number;
  readonly globalPosition: number;
  readonly eventId: string;
  readonly type: string;
}

/**
 * An event's data or metadata as the store holds it, checked to be a JSON object: a row changed by
 * hand into another JSON value (or, where the column is text, into no JSON at all) is an
 * UndecodableEvent naming its stream and revision, never cast into a RecordedEvent.
 */
const jsonObjectColumn = (event: StoredEventIdentity, column: "data" | "metadata", value: unknown, asText = false): JsonObject => {
  let parsed: unknown = value;
  if (asText) {
    try {
      parsed = JSON.parse(String(value));
    } catch {
      throw new UndecodableEvent({ ...event, problem: `its ${column} is not JSON` });
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || parsed instanceof Uint8Array) {
    throw new UndecodableEvent({ ...event, problem: `its ${column} is not a JSON object` });
  }
  // JSON.parse and the drivers' JSON columns make nothing but JSON values: an object of them is a JsonObject.
  return parsed as { readonly [key: string]: JsonValue };
};

/** A stored event from its columns as the store returns them; `asText`: data and metadata are JSON text to parse. */
export const storedEvent = (
  event: StoredEventIdentity,
  columns: { readonly data: unknown; readonly metadata: unknown; readonly recordedAt: string },
  asText = false,
): RecordedEvent => ({
  eventId: event.eventId,
  streamName: event.streamName,
  streamRevision: event.revision,
  globalPosition: event.globalPosition,
  type: event.type,
  data: jsonObjectColumn(event, "data", columns.data, asText),
  metadata: jsonObjectColumn(event, "metadata", columns.metadata, asText),
  recordedAt: columns.recordedAt,
});

/** A read that threw: an unreadable row stays that, named; anything else is the store being unavailable. */
export const readFailure =
  (dependency: string) =>
  (cause: unknown): UndecodableEvent | DependencyUnavailable =>
    cause instanceof UndecodableEvent ? cause : new DependencyUnavailable({ dependency, cause });
