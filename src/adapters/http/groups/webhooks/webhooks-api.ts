import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api";
import { ApiKey, KEYED } from "../../api/api-security.ts";
import { EngineWork } from "../../api/engine-work.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";
import type { ApiErrorTag } from "../../errors/error-catalog.ts";
import {
  CreatedWebhookData,
  DeletedWebhookData,
  DeliveryId,
  ResentDeliveryData,
  RotatedSecretData,
  WebhookBody,
  WebhookDetailData,
  WebhookId,
  WebhookListData,
} from "./webhook-schemas.ts";

/**
 * A POST here takes no Idempotency-Key: its reply holds a secret, which a kept response would store
 * in plain text. Its JSON body is read within the one-image body limit, as every body is.
 */
const POSTED_BODY: ReadonlyArray<ApiErrorTag> = [...KEYED, "HttpsRequired", "InvalidRequest", "UnsupportedMediaType", "BodyTooLarge", "EngineBusy"];
const ACTION: ReadonlyArray<ApiErrorTag> = [...KEYED, "HttpsRequired", "NotFound", "CommandRejected"];

/**
 * Webhooks (Standard Webhooks): an account's endpoints, told when a job ends. Each endpoint belongs
 * to the account whose key made it; to any other it does not exist (404). See docs/webhooks.md.
 */
export const webhooks = HttpApiGroup.make("webhooks", { topLevel: true })
  .add(
    HttpApiEndpoint.post("createWebhook", "/webhooks", {
      payload: WebhookBody,
      success: Success("CreatedWebhookReply", CreatedWebhookData)
        .pipe(HttpApiSchema.status(201))
        .annotate({ description: "The endpoint, with its secret: shown this once" }),
      error: errorResponses("CreateWebhook", [...POSTED_BODY, "CommandRejected"]),
    })
      .annotate(EngineWork, "oneImage")
      .annotate(OpenApi.Summary, "Register an endpoint to be told when a job ends")
      .annotate(
        OpenApi.Description,
        "events: job.succeeded, job.failed (default both). The url is checked now (https; its name resolved, no loopback, private, link-local, " +
          "multicast or CGNAT address: 400 naming url) and again at every delivery. At most 10 endpoints an account (409 WEBHOOK_LIMIT_REACHED).",
      ),
    HttpApiEndpoint.get("listWebhooks", "/webhooks", {
      success: Success("WebhookListReply", WebhookListData).annotate({ description: "The account's endpoints, without secrets" }),
      error: errorResponses("Keyed", KEYED),
    })
      .annotate(OpenApi.Summary, "Your webhook endpoints")
      .annotate(OpenApi.Description, "Without their secrets; a disabled endpoint (every delivery failed for 5 days) says why in disabledReason."),
    HttpApiEndpoint.get("getWebhook", "/webhooks/:id", {
      params: { id: WebhookId },
      success: Success("WebhookReply", WebhookDetailData).annotate({ description: "The endpoint and its recent deliveries" }),
      error: errorResponses("Webhook", [...KEYED, "NotFound"]),
    })
      .annotate(OpenApi.Summary, "One of your endpoints, with its recent deliveries")
      .annotate(
        OpenApi.Description,
        "Each delivery's attempts, the last status code or network error, its outcome and its next attempt; another account's endpoint is not found (404).",
      ),
    HttpApiEndpoint.delete("deleteWebhook", "/webhooks/:id", {
      params: { id: WebhookId },
      success: Success("DeletedWebhookReply", DeletedWebhookData).annotate({ description: "The endpoint deleted: nothing more is sent to it" }),
      error: errorResponses("Webhook", [...KEYED, "HttpsRequired", "NotFound"]),
    })
      .annotate(OpenApi.Summary, "Delete one of your endpoints")
      .annotate(OpenApi.Description, "Nothing more is sent to it: deliveries still under way are abandoned."),
    HttpApiEndpoint.post("rotateWebhookSecret", "/webhooks/:id/rotate-secret", {
      params: { id: WebhookId },
      success: Success("RotatedWebhookSecretReply", RotatedSecretData).annotate({ description: "The new secret: shown this once" }),
      error: errorResponses("WebhookAction", ACTION),
    })
      .annotate(OpenApi.Summary, "Give an endpoint a new secret")
      .annotate(OpenApi.Description, "For 24 hours every message carries two signatures, with the new and the previous secret; then only the new."),
    HttpApiEndpoint.post("resendWebhookDelivery", "/webhooks/:id/deliveries/:deliveryId/resend", {
      params: { id: WebhookId, deliveryId: DeliveryId },
      // 200, not 202: in this API a 202 is a job (its Location names it), and a resend is no job.
      success: Success("ResentWebhookDeliveryReply", ResentDeliveryData).annotate({ description: "The message is on its way again, with the same webhook-id" }),
      error: errorResponses("WebhookAction", ACTION),
    })
      .annotate(OpenApi.Summary, "Send a delivery's message again")
      .annotate(
        OpenApi.Description,
        "On a fresh retry schedule; 409 DELIVERY_IN_FLIGHT while an attempt is being made, WEBHOOK_DISABLED on a disabled endpoint.",
      ),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Webhooks", description: "Endpoints told when a job ends (Standard Webhooks); see docs/webhooks.md." }));
