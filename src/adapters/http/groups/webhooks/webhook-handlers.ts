import { Effect } from "effect";
import {
  addWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  resendDelivery,
  rotateWebhookSecret,
} from "../../../../application/webhooks/webhook-endpoints.ts";
import type { WebhookEndpoint } from "../../../../domain/webhook-endpoints.ts";
import type { IndexedDelivery } from "../../../../ports/webhook-index.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import type { webhooks } from "./webhooks-api.ts";

/** An endpoint as the routes answer with it: never its secret. */
export const webhookData = (endpoint: WebhookEndpoint) => ({
  id: endpoint.endpointId,
  url: endpoint.url,
  events: endpoint.events,
  createdAt: endpoint.createdAt,
  status: endpoint.status,
  disabledReason: endpoint.disabledReason ?? null,
});

export const deliveryData = (delivery: IndexedDelivery) => ({
  id: delivery.deliveryId,
  eventType: delivery.eventType,
  createdAt: delivery.createdAt,
  attempts: delivery.attempts,
  lastStatusCode: delivery.lastStatusCode,
  lastError: delivery.lastError,
  outcome: delivery.status,
  nextAttemptAt: delivery.nextAttemptAt,
});

/** The webhook routes, by their names in webhooks-api.ts. */
export const webhookHandlers: GroupHandlers<typeof webhooks, AppServices> = {
  createWebhook: ({ principal, payload }) => Effect.map(addWebhook(principal, payload), ({ endpoint, secret }) => ({ ...webhookData(endpoint), secret })),
  listWebhooks: ({ principal }) => Effect.map(listWebhooks(principal), (endpoints) => ({ webhooks: endpoints.map(webhookData) })),
  getWebhook: ({ principal, params }) =>
    Effect.map(getWebhook(principal, params.id), ({ endpoint, deliveries }) => ({ ...webhookData(endpoint), deliveries: deliveries.map(deliveryData) })),
  deleteWebhook: ({ principal, params }) =>
    Effect.map(deleteWebhook(principal, params.id), (endpoint) => ({ id: endpoint.endpointId, deleted: true as const })),
  rotateWebhookSecret: ({ principal, params }) =>
    Effect.map(rotateWebhookSecret(principal, params.id), ({ endpoint, secret }) => ({
      id: endpoint.endpointId,
      secret,
      previousSecretValidUntil: endpoint.previous?.until ?? endpoint.createdAt,
    })),
  resendWebhookDelivery: ({ principal, params }) =>
    Effect.map(resendDelivery(principal, params.id, params.deliveryId), ({ deliveryId, messageId }) => ({ id: deliveryId, messageId, queued: true as const })),
};
