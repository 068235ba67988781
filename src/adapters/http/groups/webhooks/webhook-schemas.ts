import { Schema } from "effect";
import { WEBHOOK_EVENT_TYPES } from "../../../../domain/webhook-endpoints.ts";

/** The bodies and replies of the webhook routes (webhooks-api.ts). */
const EventTypes = Schema.Array(Schema.Literals(WEBHOOK_EVENT_TYPES).annotate({ identifier: "WebhookEventType" }));
const DateTime = Schema.String.annotate({ format: "date-time" });

export const WebhookBody = Schema.Struct({
  url: Schema.String.annotate({
    description:
      "https only, at most 2,048 characters, no credentials or fragment; its host must not be (or resolve to) a loopback, private, link-local, multicast or CGNAT address",
    examples: ["https://example.com/hooks/images"],
  }),
  events: Schema.optionalKey(EventTypes.annotate({ description: "the events to send; default: every one" })),
}).annotate({ identifier: "WebhookRequest" });

export const WebhookId = Schema.String.annotate({ identifier: "WebhookId", description: "wh_… as created" });
export const DeliveryId = Schema.String.annotate({ identifier: "WebhookDeliveryId", description: "dlv_… as GET /webhooks/{id} lists it" });

const Secret = Schema.String.annotate({
  description: "whsec_ + base64 of 24 random bytes: verifies the webhook-signature header (Standard Webhooks); shown only in this response",
});

const endpointFields = {
  id: Schema.String.annotate({ description: "wh_…" }),
  url: Schema.String,
  events: EventTypes,
  createdAt: DateTime,
  status: Schema.Literals(["active", "disabled"]).annotate({
    description: "disabled: every delivery failed for too long (disabledReason); add the endpoint again",
  }),
  disabledReason: Schema.NullOr(Schema.String),
};

export const WebhookData = Schema.Struct(endpointFields).annotate({ identifier: "Webhook" });

export const CreatedWebhookData = Schema.Struct({ ...endpointFields, secret: Secret });

export const RotatedSecretData = Schema.Struct({
  id: Schema.String,
  secret: Secret,
  previousSecretValidUntil: DateTime.annotate({ description: "until then every message is signed with the new and the previous secret" }),
});

export const WebhookListData = Schema.Struct({ webhooks: Schema.Array(WebhookData) });

export const WebhookDeliveryData = Schema.Struct({
  id: Schema.String.annotate({ description: "dlv_…" }),
  eventType: Schema.String,
  createdAt: DateTime,
  attempts: Schema.Int,
  lastStatusCode: Schema.NullOr(Schema.Int).annotate({ description: "the receiver's last answer; null when none came" }),
  lastError: Schema.NullOr(Schema.String).annotate({ description: "the last attempt's network error class (timeout, ECONNREFUSED, forbidden_address…)" }),
  outcome: Schema.Literals(["pending", "sending", "succeeded", "failed", "abandoned"]),
  nextAttemptAt: Schema.NullOr(DateTime),
}).annotate({ identifier: "WebhookDelivery" });

export const WebhookDetailData = Schema.Struct({
  ...endpointFields,
  deliveries: Schema.Array(WebhookDeliveryData).annotate({ description: "the newest 20 deliveries, newest first" }),
});

export const DeletedWebhookData = Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) });

export const ResentDeliveryData = Schema.Struct({
  id: Schema.String,
  messageId: Schema.String.annotate({ description: "the webhook-id header it is sent with, as before" }),
  queued: Schema.Literal(true),
});
