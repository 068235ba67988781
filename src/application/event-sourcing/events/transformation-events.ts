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

const Parameters = Schema.Record(Schema.String, Schema.String);

/** The events of a `transformation-<requestId>` stream, as stored. */
export const TransformationEventSchema: Schema.Codec<TransformationEvent, TransformationEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("TransformationRequested"),
    data: Schema.Struct({
      requestId: Schema.String,
      accountId: Schema.String,
      keyId: Schema.String,
      operation: Schema.Literals(FEATURES),
      parameters: Parameters,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("TransformationCompleted"),
    data: Schema.Struct({ requestId: Schema.String, processingTimeMs: Schema.Number, output: Parameters, at: Schema.String }),
  }),
  Schema.Struct({ type: Schema.Literal("TransformationFailed"), data: Schema.Struct({ requestId: Schema.String, code: Schema.String, at: Schema.String }) }),
]);

export const transformationEventCodec = makeEventCodec(TransformationEventSchema);

export const transformationStreamType: StreamType<TransformationCommand, TransformationEvent, TransformationState> = {
  decider: transformationRequestDecider,
  codec: transformationEventCodec,
};
