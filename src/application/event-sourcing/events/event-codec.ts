import { Effect, Result, Schema, SchemaIssue } from "effect";
import { type JsonObject, type NewEvent, type RecordedEvent, UndecodableEvent } from "../../../ports/event-store.ts";

/**
 * Events outlive the code that wrote them, so a stored event is decoded, never cast: each stream
 * has a Schema (a union of its events), every event carries the schema version of its type, and
 * an upcaster turns each older version's data into the next, up to the current one.
 */
export const SCHEMA_VERSION_METADATA_KEY = "schemaVersion";

/** Turns one version's data into the next version's. */
export type Upcaster = (data: JsonObject) => JsonObject;

export interface EventCodecDefinition {
  /** The current schema version of each type that has had more than one; others are at 1. */
  readonly versions?: Readonly<Record<string, number>>;
  /** `upcasters[type][n]` turns version n into n + 1. */
  readonly upcasters?: Readonly<Record<string, Readonly<Record<number, Upcaster>>>>;
}

export interface EventCodec<Event extends { readonly type: string }> {
  /** The stream's events at their current versions: what docs/events.md is generated from. */
  readonly schema: Schema.Top;
  readonly definition: EventCodecDefinition;
  /** The stored event as its stream's current shape, or why it cannot be. */
  readonly decodeResult: (recorded: RecordedEvent) => Result.Result<Event, UndecodableEvent>;
  /** The same for synchronous callers (a projection's transaction): throws UndecodableEvent. */
  readonly decode: (recorded: RecordedEvent) => Event;
  /** The event as stored: checked against the Schema and stamped with its type's current version. */
  readonly encode: (event: Event, metadata: JsonObject) => NewEvent;
}

const versionOf = (metadata: JsonObject): number | undefined => {
  const version = metadata[SCHEMA_VERSION_METADATA_KEY];
  // Events from before versioning carry none: they are version 1.
  if (version === undefined) return 1;
  return typeof version === "number" && Number.isSafeInteger(version) && version >= 1 ? version : undefined;
};

const describeIssue = (error: Schema.SchemaError): string =>
  SchemaIssue.makeFormatterStandardSchemaV1()(error.issue)
    .issues.map((issue) => `${issue.path?.join(".") ?? ""}: ${issue.message}`)
    .join("; ");

export const makeEventCodec = <Event extends { readonly type: string; readonly data: object }>(
  schema: Schema.Codec<Event, Event>,
  definition: EventCodecDefinition = {},
): EventCodec<Event> => {
  const decodeUnknown = Schema.decodeUnknownResult(schema);
  const encodeChecked = Schema.encodeUnknownResult(schema);
  const currentVersion = (type: string) => definition.versions?.[type] ?? 1;

  const decodeResult = (recorded: RecordedEvent): Result.Result<Event, UndecodableEvent> => {
    const fail = (problem: string) =>
      Result.fail(
        new UndecodableEvent({
          streamName: recorded.streamName,
          revision: recorded.streamRevision,
          globalPosition: recorded.globalPosition,
          eventId: recorded.eventId,
          type: recorded.type,
          problem,
        }),
      );
    const stored = versionOf(recorded.metadata);
    if (stored === undefined) return fail(`schema version ${JSON.stringify(recorded.metadata[SCHEMA_VERSION_METADATA_KEY])} is not a version`);
    const current = currentVersion(recorded.type);
    if (stored > current) return fail(`written at schema version ${stored}, newer than this code's ${current}`);
    let data = recorded.data;
    for (let version = stored; version < current; version++) {
      const upcast = definition.upcasters?.[recorded.type]?.[version];
      if (upcast === undefined) return fail(`no upcaster from schema version ${version}`);
      data = upcast(data);
    }
    const decoded = decodeUnknown({ type: recorded.type, data });
    return Result.isFailure(decoded) ? fail(describeIssue(decoded.failure)) : Result.succeed(decoded.success);
  };

  return {
    schema,
    definition,
    decodeResult,
    decode: (recorded) => {
      const decoded = decodeResult(recorded);
      if (Result.isFailure(decoded)) throw decoded.failure;
      return decoded.success;
    },
    encode: (event, metadata) => {
      const encoded = encodeChecked(event);
      // A bug, not a condition: the decider made an event its own stream's Schema refuses.
      if (Result.isFailure(encoded)) throw new Error(`${event.type} does not encode: ${describeIssue(encoded.failure)}`);
      return {
        type: encoded.success.type,
        data: encoded.success.data as JsonObject,
        metadata: { ...metadata, [SCHEMA_VERSION_METADATA_KEY]: currentVersion(event.type) },
      };
    },
  };
};

/** Decoding as an Effect: an undecodable event fails with UndecodableEvent. */
export const decodeEvent = <Event extends { readonly type: string }>(codec: EventCodec<Event>, recorded: RecordedEvent) =>
  Effect.fromResult(codec.decodeResult(recorded));
