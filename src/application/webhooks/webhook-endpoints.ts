import { Effect } from "effect";
import { echo } from "../../domain/echo.ts";
import { webhookDeliveryStream } from "../../domain/webhook-delivery.ts";
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEndpointCommand,
  webhookEndpointsStream,
  type WebhookEventType,
} from "../../domain/webhook-endpoints.ts";
import { Clock } from "../../ports/clock.ts";
import { Ids } from "../../ports/ids.ts";
import { WebhookCrypto } from "../../ports/webhook-crypto.ts";
import { WebhookIndex } from "../../ports/webhook-index.ts";
import { WebhookTransport } from "../../ports/webhook-transport.ts";
import { accountActing } from "../access/actor.ts";
import { CommandRejected, InvalidRequest, NotFound } from "../errors.ts";
import { handleCommand, loadState } from "../event-sourcing/command-handler.ts";
import { webhookDeliveryStreamType, webhookEndpointsStreamType } from "../event-sourcing/events/webhook-events.ts";
import { WebhookSettings } from "./webhook-settings.ts";

/**
 * An account's webhook endpoints, managed by its keys or its holder in the console. Another
 * account's endpoint does not exist (404). A secret is shown once, when made; the store keeps it sealed.
 */
export type WebhookOwner = { readonly account: { readonly accountId: string } } & (
  { readonly key: { readonly keyId: string } } | { readonly sessionId: string }
);

export interface WebhookBody {
  readonly url: string;
  readonly events?: ReadonlyArray<WebhookEventType> | undefined;
}

/** How many recent deliveries an endpoint's page shows. */
export const RECENT_DELIVERIES = 20;

const notFound = (id: string) => new NotFound({ message: `No webhook ${echo(id)} on this account.` });

const decided = (owner: WebhookOwner, command: WebhookEndpointCommand) =>
  handleCommand(webhookEndpointsStreamType, webhookEndpointsStream(owner.account.accountId), command, accountActing(owner)).pipe(
    Effect.catchTag("CommandRejected", (rejected): Effect.Effect<never, CommandRejected | NotFound> =>
      Effect.fail(rejected.code === "WEBHOOK_NOT_FOUND" && "endpointId" in command ? notFound(command.endpointId) : rejected),
    ),
  );

export const listWebhooks = (owner: { readonly account: { readonly accountId: string } }) =>
  Effect.map(loadState(webhookEndpointsStreamType, webhookEndpointsStream(owner.account.accountId)), ({ state }) => [...state.endpoints.values()]);

export const findWebhook = (owner: { readonly account: { readonly accountId: string } }, endpointId: string) =>
  Effect.flatMap(loadState(webhookEndpointsStreamType, webhookEndpointsStream(owner.account.accountId)), ({ state }) => {
    const endpoint = state.endpoints.get(endpointId);
    return endpoint === undefined ? Effect.fail(notFound(endpointId)) : Effect.succeed<WebhookEndpoint>(endpoint);
  });

/** The endpoint and its newest deliveries. */
export const getWebhook = (owner: { readonly account: { readonly accountId: string } }, endpointId: string) =>
  Effect.gen(function* () {
    const endpoint = yield* findWebhook(owner, endpointId);
    const deliveries = yield* (yield* WebhookIndex).recentDeliveries(endpointId, RECENT_DELIVERIES);
    return { endpoint, deliveries };
  });

/** Checks the body and the target (its names resolved now; again at every delivery), then keeps the endpoint with a new secret. */
export const addWebhook = (owner: WebhookOwner, body: WebhookBody) =>
  Effect.gen(function* () {
    const events = [...new Set(body.events ?? WEBHOOK_EVENT_TYPES)];
    if (events.length === 0) {
      return yield* new InvalidRequest({
        message: "events names no event.",
        details: [{ path: "events", message: `one or more of ${WEBHOOK_EVENT_TYPES.join(", ")}` }],
      });
    }
    const problem = yield* (yield* WebhookTransport).targetProblem(body.url);
    if (problem !== undefined) {
      return yield* new InvalidRequest({
        message: `url ${echo(body.url)} may not receive webhooks: ${problem}.`,
        details: [{ path: "url", message: problem }],
      });
    }
    const crypto = yield* WebhookCrypto;
    const secret = crypto.newSecret();
    const endpointId = `wh_${(yield* Ids).uuid().replaceAll("-", "")}`;
    const { maxEndpoints } = yield* WebhookSettings;
    const command = {
      type: "AddWebhook",
      accountId: owner.account.accountId,
      endpointId,
      url: body.url,
      events,
      sealedSecret: crypto.seal(secret),
      limit: maxEndpoints,
      now: (yield* Clock).now(),
    } as const;
    const handled = yield* decided(owner, command);
    return { endpoint: handled.state.endpoints.get(endpointId)!, secret };
  });

export const deleteWebhook = (owner: WebhookOwner, endpointId: string) =>
  Effect.gen(function* () {
    const endpoint = yield* findWebhook(owner, endpointId);
    yield* decided(owner, { type: "DeleteWebhook", endpointId, now: (yield* Clock).now() });
    return endpoint;
  });

/** A new secret; the old one still signs, beside it, for SECRET_OVERLAP_MS. */
export const rotateWebhookSecret = (owner: WebhookOwner, endpointId: string) =>
  Effect.gen(function* () {
    yield* findWebhook(owner, endpointId);
    const crypto = yield* WebhookCrypto;
    const secret = crypto.newSecret();
    const handled = yield* decided(owner, { type: "RotateWebhookSecret", endpointId, sealedSecret: crypto.seal(secret), now: (yield* Clock).now() });
    return { endpoint: handled.state.endpoints.get(endpointId)!, secret };
  });

/** Sends a delivery's message again (the same webhook-id), on a fresh schedule. */
export const resendDelivery = (owner: WebhookOwner, endpointId: string, deliveryId: string) =>
  Effect.gen(function* () {
    const endpoint = yield* findWebhook(owner, endpointId);
    const stream = webhookDeliveryStream(deliveryId);
    const { state } = yield* loadState(webhookDeliveryStreamType, stream);
    if (state.status === "none" || state.created.endpointId !== endpointId || state.created.accountId !== owner.account.accountId) {
      return yield* new NotFound({ message: `No delivery ${echo(deliveryId)} of webhook ${echo(endpointId)}.` });
    }
    if (endpoint.status === "disabled") {
      return yield* new CommandRejected({
        code: "WEBHOOK_DISABLED",
        message: `Webhook ${endpointId} is disabled (${endpoint.disabledReason ?? ""}); add it again.`,
      });
    }
    yield* handleCommand(webhookDeliveryStreamType, stream, { type: "ResendDelivery", now: (yield* Clock).now() }, accountActing(owner));
    return { deliveryId, messageId: state.created.messageId };
  });
