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
import { AccountId, At, described } from "./event-fields.ts";

const EventType = Schema.Literals(WEBHOOK_EVENT_TYPES);
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const EndpointId = described(Schema.String, "the endpoint's id (`wh_…`)");
const SealedSecret = described(Schema.String, "the signing secret, encrypted with a key from SERVER_SECRET (never stored in the clear)");
const DeliveryId = described(Schema.String, "the delivery's id");
const Attempt = described(Count, "the attempt's number, from 1");

/** The events of a `webhooks-<accountId>` stream, as stored: the secret only ever sealed. */
export const WebhookEndpointEventSchema: Schema.Codec<WebhookEndpointEvent, WebhookEndpointEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("WebhookAdded"),
    data: Schema.Struct({
      accountId: AccountId,
      endpointId: EndpointId,
      url: described(Schema.String, "where deliveries are posted (HTTPS)"),
      events: described(Schema.Array(EventType), "the event types sent to it"),
      sealedSecret: SealedSecret,
      at: At,
    }),
  }).annotate({ description: "A webhook endpoint is added.", writtenBy: "AddWebhook" }),
  Schema.Struct({
    type: Schema.Literal("WebhookSecretRotated"),
    data: Schema.Struct({
      accountId: AccountId,
      endpointId: EndpointId,
      sealedSecret: described(SealedSecret, "the new signing secret, encrypted"),
      previousUntil: described(Schema.String, "ISO 8601 UTC until which messages are signed with the old secret too"),
      at: At,
    }),
  }).annotate({ description: "An endpoint's signing secret is replaced.", writtenBy: "RotateWebhookSecret" }),
  Schema.Struct({
    type: Schema.Literal("WebhookDisabled"),
    data: Schema.Struct({ accountId: AccountId, endpointId: EndpointId, reason: described(Schema.String, "why it was disabled"), at: At }),
  }).annotate({ description: "An endpoint is no longer sent to (failing too long, or disabled by its holder).", writtenBy: "DisableWebhook" }),
  Schema.Struct({ type: Schema.Literal("WebhookDeleted"), data: Schema.Struct({ accountId: AccountId, endpointId: EndpointId, at: At }) }).annotate({
    description: "An endpoint is deleted.",
    writtenBy: "DeleteWebhook",
  }),
]);

/** The events of a `webhook-delivery-<deliveryId>` stream, as stored. */
export const WebhookDeliveryEventSchema: Schema.Codec<WebhookDeliveryEvent, WebhookDeliveryEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("DeliveryCreated"),
    data: Schema.Struct({
      deliveryId: DeliveryId,
      accountId: AccountId,
      endpointId: EndpointId,
      messageId: described(Schema.String, "the Standard Webhooks `webhook-id`, the same on every attempt"),
      eventType: described(EventType, "what happened"),
      body: described(Schema.String, "the message's JSON body, exactly as sent and signed"),
      at: At,
      nextAttemptAt: described(Schema.String, "ISO 8601 UTC of the first attempt"),
    }),
  }).annotate({ description: "A message to one endpoint is made (a job ended).", writtenBy: "CreateDelivery" }),
  Schema.Struct({
    type: Schema.Literal("DeliveryAttemptStarted"),
    data: Schema.Struct({
      deliveryId: DeliveryId,
      attempt: Attempt,
      worker: described(Schema.String, "the instance that sends it"),
      leaseUntil: described(Schema.String, "ISO 8601 UTC until which the worker holds the delivery"),
      at: At,
    }),
  }).annotate({ description: "An attempt to send begins.", writtenBy: "StartDeliveryAttempt" }),
  Schema.Struct({
    type: Schema.Literal("DeliveryAttemptFinished"),
    data: Schema.Struct({
      deliveryId: DeliveryId,
      endpointId: EndpointId,
      attempt: Attempt,
      ok: described(Schema.Boolean, "true: the endpoint answered 2xx"),
      statusCode: described(Schema.NullOr(Schema.Int), "the endpoint's HTTP status; null: no answer"),
      error: described(Schema.NullOr(Schema.String), "why there was no answer (timeout, refused…); null when answered"),
      durationMs: described(Count, "milliseconds the attempt took"),
      nextAttemptAt: described(Schema.NullOr(Schema.String), "ISO 8601 UTC of the next attempt; null: no more"),
      at: At,
    }),
  }).annotate({ description: "An attempt ends.", writtenBy: "FinishDeliveryAttempt" }),
  Schema.Struct({ type: Schema.Literal("DeliveryResent"), data: Schema.Struct({ deliveryId: DeliveryId, at: At }) }).annotate({
    description: "The holder asks for the message to be sent again.",
    writtenBy: "ResendDelivery",
  }),
  Schema.Struct({
    type: Schema.Literal("DeliveryAbandoned"),
    data: Schema.Struct({ deliveryId: DeliveryId, reason: described(Schema.String, "why no more attempts are made"), at: At }),
  }).annotate({ description: "No more attempts will be made.", writtenBy: "AbandonDelivery" }),
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
