import { Schema } from "effect";
import { type WebhookDeliveryCommand, webhookDeliveryDecider, type WebhookDeliveryEvent, type WebhookDeliveryState } from "../../../domain/webhook-delivery.ts";
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointCommand,
  type WebhookEndpointEvent,
  webhookEndpointsDecider,
  type WebhookEndpointsState,
} from "../../../domain/webhook-endpoints.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";

const EventType = Schema.Literals(WEBHOOK_EVENT_TYPES);
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));

/** The events of a `webhooks-<accountId>` stream, as stored: the secret only ever sealed. */
export const WebhookEndpointEventSchema: Schema.Codec<WebhookEndpointEvent, WebhookEndpointEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("WebhookAdded"),
    data: Schema.Struct({
      accountId: Schema.String,
      endpointId: Schema.String,
      url: Schema.String,
      events: Schema.Array(EventType),
      sealedSecret: Schema.String,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("WebhookSecretRotated"),
    data: Schema.Struct({ accountId: Schema.String, endpointId: Schema.String, sealedSecret: Schema.String, previousUntil: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("WebhookDisabled"),
    data: Schema.Struct({ accountId: Schema.String, endpointId: Schema.String, reason: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({ type: Schema.Literal("WebhookDeleted"), data: Schema.Struct({ accountId: Schema.String, endpointId: Schema.String, at: Schema.String }) }),
]);

/** The events of a `webhook-delivery-<deliveryId>` stream, as stored. */
export const WebhookDeliveryEventSchema: Schema.Codec<WebhookDeliveryEvent, WebhookDeliveryEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("DeliveryCreated"),
    data: Schema.Struct({
      deliveryId: Schema.String,
      accountId: Schema.String,
      endpointId: Schema.String,
      messageId: Schema.String,
      eventType: EventType,
      body: Schema.String,
      at: Schema.String,
      nextAttemptAt: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("DeliveryAttemptStarted"),
    data: Schema.Struct({ deliveryId: Schema.String, attempt: Count, worker: Schema.String, leaseUntil: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("DeliveryAttemptFinished"),
    data: Schema.Struct({
      deliveryId: Schema.String,
      endpointId: Schema.String,
      attempt: Count,
      ok: Schema.Boolean,
      statusCode: Schema.NullOr(Schema.Int),
      error: Schema.NullOr(Schema.String),
      durationMs: Count,
      nextAttemptAt: Schema.NullOr(Schema.String),
      at: Schema.String,
    }),
  }),
  Schema.Struct({ type: Schema.Literal("DeliveryResent"), data: Schema.Struct({ deliveryId: Schema.String, at: Schema.String }) }),
  Schema.Struct({ type: Schema.Literal("DeliveryAbandoned"), data: Schema.Struct({ deliveryId: Schema.String, reason: Schema.String, at: Schema.String }) }),
]);

export const webhookEndpointEventCodec = makeEventCodec(WebhookEndpointEventSchema);
export const webhookDeliveryEventCodec = makeEventCodec(WebhookDeliveryEventSchema);

export const webhookEndpointsStreamType: StreamType<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointsState> = {
  decider: webhookEndpointsDecider,
  codec: webhookEndpointEventCodec,
};

export const webhookDeliveryStreamType: StreamType<WebhookDeliveryCommand, WebhookDeliveryEvent, WebhookDeliveryState> = {
  decider: webhookDeliveryDecider,
  codec: webhookDeliveryEventCodec,
};
