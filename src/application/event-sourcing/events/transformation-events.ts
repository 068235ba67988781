import { Schema } from "effect";
import { FEATURES } from "../../../domain/plan.ts";
import {
  type TransformationCommand,
  type TransformationEvent,
  transformationRequestDecider,
  type TransformationState,
} from "../../../domain/transformation-request.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";
import { AccountId, At, described, KeyId, RequestId } from "./event-fields.ts";

const Parameters = Schema.Record(Schema.String, Schema.String);

/** The events of a `transformation-<requestId>` stream, as stored. */
export const TransformationEventSchema: Schema.Codec<TransformationEvent, TransformationEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("TransformationRequested"),
    data: Schema.Struct({
      requestId: RequestId,
      accountId: AccountId,
      keyId: KeyId,
      operation: described(Schema.Literals(FEATURES), "the operation called"),
      parameters: described(Parameters, "the call's parameters (template, format, languages…), every value a string"),
      at: At,
    }),
  }).annotate({ description: "A billable call's work begins, after its units are reserved.", writtenBy: "RequestTransformation" }),
  Schema.Struct({
    type: Schema.Literal("TransformationCompleted"),
    data: Schema.Struct({
      requestId: RequestId,
      processingTimeMs: described(Schema.Number, "milliseconds the work took"),
      output: described(Parameters, "what came out (format, width, height, bytes, pages…): every value a string, numbers in decimal"),
      at: At,
    }),
  }).annotate({ description: "The work succeeded (its units are committed in the quota stream).", writtenBy: "CompleteTransformation" }),
  Schema.Struct({
    type: Schema.Literal("TransformationFailed"),
    data: Schema.Struct({ requestId: RequestId, code: described(Schema.String, "the error code the caller received"), at: At }),
  }).annotate({ description: "The work failed (its units are released in the quota stream).", writtenBy: "FailTransformation" }),
]);

export const transformationEventCodec = makeEventCodec(TransformationEventSchema);

export const transformationStreamType: StreamType<TransformationCommand, TransformationEvent, TransformationState> = {
  decider: transformationRequestDecider,
  codec: transformationEventCodec,
};
