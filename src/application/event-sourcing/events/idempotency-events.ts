import { Schema } from "effect";
import { type IdempotencyCommand, type IdempotencyEvent, type IdempotencyState, idempotentRequestDecider } from "../../../domain/idempotent-request.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";
import { At, described, Sha256Hex } from "./event-fields.ts";

// A reference and digest since issue 24; before, the body itself (still read: stores keep those events).
const Status = described(Schema.Number, "the HTTP status answered");
const RecordedResponse = described(
  Schema.Union([
    Schema.Struct({
      status: Status,
      bodyRef: described(Schema.String, "where the kept body is, in the result store"),
      bodySha256: Sha256Hex("the kept body's bytes"),
    }),
    Schema.Struct({ status: Status, body: described(Schema.Record(Schema.String, Schema.Unknown), "the JSON body answered (events before issue 24)") }),
  ]),
  "the response a repeat of the key is answered with",
);
const AttemptId = described(Schema.String, "the attempt holding the key: a repeat while it runs is answered 409");

/** The events of an `idempotency-<account>-<digest>` stream, as stored. */
export const IdempotencyEventSchema: Schema.Codec<IdempotencyEvent, IdempotencyEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("IdempotentRequestStarted"),
    data: Schema.Struct({
      attemptId: AttemptId,
      fingerprint: described(Schema.String, "lowercase hex SHA-256 of the request (method, path, body): a repeat with another is refused 422"),
      leaseUntil: described(Schema.String, "ISO 8601 UTC until which the attempt holds the key; after it another attempt may start"),
      expiresAt: described(Schema.String, "ISO 8601 UTC after which the key may be used for another request"),
      at: At,
    }),
  }).annotate({ description: "A request with an `Idempotency-Key` starts (a repeat after completion writes nothing).", writtenBy: "BeginAttempt" }),
  Schema.Struct({
    type: Schema.Literal("IdempotentRequestCompleted"),
    data: Schema.Struct({ attemptId: AttemptId, response: RecordedResponse, at: At }),
  }).annotate({ description: "The attempt answered: its response is kept for repeats.", writtenBy: "CompleteAttempt" }),
  Schema.Struct({ type: Schema.Literal("IdempotentRequestReleased"), data: Schema.Struct({ attemptId: AttemptId, at: At }) }).annotate({
    description: "The attempt ended without a response to keep (e.g. an error worth retrying): the key is free again.",
    writtenBy: "ReleaseAttempt",
  }),
]);

export const idempotencyEventCodec = makeEventCodec(IdempotencyEventSchema);

export const idempotencyStreamType: StreamType<IdempotencyCommand, IdempotencyEvent, IdempotencyState> = {
  decider: idempotentRequestDecider,
  codec: idempotencyEventCodec,
};
