import { Result, Schema, SchemaIssue } from "effect";
import type { RecordedEvent } from "../../ports/event-store.ts";

/**
 * What a message on the event stream must hold to be handed to a consumer at all: the shape of a
 * recorded event, within bounds. Anyone who reaches the bus can publish, so this is checked before
 * anything reads it; whether the store holds that event is the consumer's check (bus-notice).
 */
const Text = Schema.String.check(Schema.isMaxLength(1_024));
const JsonObject = Schema.Record(Schema.String, Schema.Unknown);

const BusEvent = Schema.Struct({
  eventId: Text,
  streamName: Text,
  streamRevision: Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)),
  globalPosition: Schema.Number.check(Schema.isInt(), Schema.isGreaterThan(0)),
  type: Text,
  data: JsonObject,
  metadata: JsonObject,
  recordedAt: Text,
});

const decode = Schema.decodeUnknownResult(BusEvent);

/** The event a message body holds, or why it holds none. */
export const decodeBusEvent = (body: string): Result.Result<RecordedEvent, string> => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return Result.fail("not JSON");
  }
  const decoded = decode(json, { errors: "first" });
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success as RecordedEvent);
  const [issue] = SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure.issue).issues;
  return Result.fail(`not an event: ${issue?.path?.join(".") ?? ""} ${issue?.message ?? ""}`.trim());
};
