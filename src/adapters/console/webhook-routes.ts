import type Router from "@koa/router";
import { Effect } from "effect";
import type { Context } from "koa";
import type { HolderSession } from "../../application/access/holder-access.ts";
import { addWebhook, deleteWebhook, getWebhook, listWebhooks, resendDelivery, type WebhookOwner } from "../../application/webhooks/webhook-endpoints.ts";
import { WEBHOOK_EVENT_TYPES } from "../../domain/webhook-endpoints.ts";
import { type ApiError, errorResponseOf } from "../http/errors/error-catalog.ts";
import { messagePage } from "./console-layout.ts";
import { type Execute, redirect, send, serverFault } from "./console-responses.ts";
import type { sessionGuards } from "./console-session.ts";
import { type WebhookFormState, webhooksPage } from "./webhook-pages.ts";

type Guards = ReturnType<typeof sessionGuards>;

const ownerOf = (session: HolderSession): WebhookOwner => ({ account: { accountId: session.accountId }, sessionId: session.sessionId });

/** The endpoints, each with its recent deliveries. */
const endpointsOf = (owner: WebhookOwner) =>
  Effect.flatMap(listWebhooks(owner), (endpoints) => Effect.forEach(endpoints, (endpoint) => getWebhook(owner, endpoint.endpointId)));

const gone = (ctx: Context) =>
  send(
    ctx,
    404,
    messagePage("No such webhook", "This webhook or delivery does not exist, or was deleted.", { href: "/console/webhooks", label: "Back to webhooks" }),
  );

/**
 * The Webhooks page under /console/webhooks: the account's endpoints added, deleted and their
 * deliveries resent by the same use cases as the API's, each change recorded as the holder's. A new
 * endpoint's secret is shown on the response to the form that added it, and never again.
 */
export const webhookRoutes = (router: Router, execute: Execute, { signedIn, signedInForm, viewOf }: Guards): void => {
  const showPage = async (ctx: Context, session: HolderSession, status: number, form: WebhookFormState) => {
    const view = await viewOf(ctx, session);
    if (view === undefined) return;
    const listed = await execute(ctx, endpointsOf(ownerOf(session)));
    if (listed === undefined) return;
    if (!listed.ok) return serverFault(ctx, listed.failure);
    // A page that may hold a secret is never kept by a cache.
    ctx.set("Cache-Control", "no-store");
    send(ctx, status, webhooksPage(view, session.csrfToken, listed.value, form));
  };

  router.get(
    "/webhooks",
    signedIn((ctx, { session }) => showPage(ctx, session, 200, {})),
  );

  router.post(
    "/webhooks",
    signedInForm(async (ctx, { session, form }) => {
      const url = form.get("url") ?? "";
      const events = WEBHOOK_EVENT_TYPES.filter((type) => form.has(type));
      const result = await execute(ctx, addWebhook(ownerOf(session), { url, events }));
      if (result === undefined) return;
      if (!result.ok) {
        const response = errorResponseOf(result.failure as ApiError);
        if (response.status >= 500) return serverFault(ctx, result.failure);
        return showPage(ctx, session, response.status, { url, error: response.message });
      }
      return showPage(ctx, session, 201, { created: { endpointId: result.value.endpoint.endpointId, secret: result.value.secret } });
    }),
  );

  router.post(
    "/webhooks/:endpointId/delete",
    signedInForm(async (ctx, { session }) => {
      const result = await execute(ctx, deleteWebhook(ownerOf(session), ctx.params.endpointId ?? ""));
      if (result === undefined) return;
      if (!result.ok) return result.failure._tag === "NotFound" ? gone(ctx) : serverFault(ctx, result.failure);
      redirect(ctx, "/console/webhooks");
    }),
  );

  router.post(
    "/webhooks/:endpointId/deliveries/:deliveryId/resend",
    signedInForm(async (ctx, { session }) => {
      const result = await execute(ctx, resendDelivery(ownerOf(session), ctx.params.endpointId ?? "", ctx.params.deliveryId ?? ""));
      if (result === undefined) return;
      if (!result.ok) {
        if (result.failure._tag === "NotFound") return gone(ctx);
        const response = errorResponseOf(result.failure as ApiError);
        if (response.status >= 500) return serverFault(ctx, result.failure);
        return showPage(ctx, session, response.status, { error: response.message });
      }
      redirect(ctx, "/console/webhooks");
    }),
  );
};
