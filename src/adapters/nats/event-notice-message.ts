import { Result, Schema, SchemaIssue } from "effect";
import type { EventNotice } from "../../ports/event-bus.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";

/**
 * A message on the event stream: an event's notice, `{"eventId":…,"globalPosition":…}`, a few dozen
 * bytes whatever the event holds. Anyone who reaches the bus can publish, so a message is checked
 * against this shape before anything reads it; whether the store holds that event is the
 * consumer's check. Messages of earlier versions, whole events, read as the notice they include.
 */
const Notice = Schema.Struct({
  eventId: Schema.String.check(Schema.isMaxLength(1_024)),
  globalPosition: Schema.Number.check(Schema.isInt(), Schema.isGreaterThan(0)),
});

const decode = Schema.decodeUnknownResult(Notice);

export const encodeNotice = (event: RecordedEvent): string => JSON.stringify({ eventId: event.eventId, globalPosition: event.globalPosition });

/** The notice a message body holds, or why it holds none. */
export const decodeNotice = (body: string): Result.Result<EventNotice, string> => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return Result.fail("not JSON");
  }
  const decoded = decode(json, { errors: "first" });
  if (Result.isSuccess(decoded)) return Result.succeed({ eventId: decoded.success.eventId, globalPosition: decoded.success.globalPosition });
  const [issue] = SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure.issue).issues;
  return Result.fail(`not an event notice: ${issue?.path?.join(".") ?? ""} ${issue?.message ?? ""}`.trim());
};
