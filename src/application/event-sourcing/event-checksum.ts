import type { JsonValue, RecordedEvent } from "../../ports/event-store.ts";

/**
 * A running SHA-256, passed in by the caller: application code reaches no node:* module, and a
 * hash function is a solved problem best left to the platform (see adapters/crypto/node-sha256.ts).
 */
export interface IncrementalHash {
  readonly update: (text: string) => void;
  /** Lower-case hex. */
  readonly digest: () => string;
}

/** JSON with object keys sorted at every depth, so equal values serialize equally whatever their key order. */
export const canonicalJson = (value: JsonValue): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const object = value as { readonly [key: string]: JsonValue };
  const keys = Object.keys(object).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key] ?? null)}`).join(",")}}`;
};

/**
 * What a copy must keep of an event, one line each: stream, revision, id, type, data, metadata.
 * Global positions and recording times belong to the store that holds the event, so they are left out.
 */
export const canonicalEventLine = (event: RecordedEvent): string =>
  `${canonicalJson([event.streamName, event.streamRevision, event.eventId, event.type, event.data, event.metadata])}\n`;
