import { Schema } from "effect";
import { type IdempotencyCommand, type IdempotencyEvent, type IdempotencyState, idempotentRequestDecider } from "../../../domain/idempotent-request.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";

// A reference and digest since issue 24; before, the body itself (still read: stores keep those events).
const RecordedResponse = Schema.Union([
  Schema.Struct({ status: Schema.Number, bodyRef: Schema.String, bodySha256: Schema.String }),
  Schema.Struct({ status: Schema.Number, body: Schema.Record(Schema.String, Schema.Unknown) }),
]);

/** The events of an `idempotency-<account>-<digest>` stream, as stored. */
export const IdempotencyEventSchema: Schema.Codec<IdempotencyEvent, IdempotencyEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("IdempotentRequestStarted"),
    data: Schema.Struct({ attemptId: Schema.String, fingerprint: Schema.String, leaseUntil: Schema.String, expiresAt: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("IdempotentRequestCompleted"),
    data: Schema.Struct({ attemptId: Schema.String, response: RecordedResponse, at: Schema.String }),
  }),
  Schema.Struct({ type: Schema.Literal("IdempotentRequestReleased"), data: Schema.Struct({ attemptId: Schema.String, at: Schema.String }) }),
]);

export const idempotencyEventCodec = makeEventCodec(IdempotencyEventSchema);

export const idempotencyStreamType: StreamType<IdempotencyCommand, IdempotencyEvent, IdempotencyState> = {
  decider: idempotentRequestDecider,
  codec: idempotencyEventCodec,
};
