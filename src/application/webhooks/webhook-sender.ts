import { Effect } from "effect";
import type { AttemptOutcome } from "../../domain/webhook-delivery.ts";
import { webhookDeliveryStream } from "../../domain/webhook-delivery.ts";
import { signingSecrets, type WebhookEndpoint, webhookEndpointsStream } from "../../domain/webhook-endpoints.ts";
import { Clock } from "../../ports/clock.ts";
import { WebhookCrypto } from "../../ports/webhook-crypto.ts";
import { WebhookIndex } from "../../ports/webhook-index.ts";
import { WebhookTransport } from "../../ports/webhook-transport.ts";
import { handleCommand, loadState } from "../event-sourcing/command-handler.ts";
import { webhookDeliveryStreamType, webhookEndpointsStreamType } from "../event-sourcing/events/webhook-events.ts";
import { WEBHOOK_ACTOR } from "./webhook-fan-out.ts";
import { WebhookSettings } from "./webhook-settings.ts";

const DUE_PAGE = 50;
/** Attempts in flight at once per instance: one slow receiver must not hold up the others. */
const SENDING = 8;

/** Disables an endpoint whose every attempt has failed for `disableAfterMs`. */
const disableIfFailingTooLong = (endpoint: WebhookEndpoint, now: Date) =>
  Effect.gen(function* () {
    const since = yield* (yield* WebhookIndex).failingSince(endpoint.endpointId);
    const { disableAfterMs } = yield* WebhookSettings;
    if (since === undefined || now.getTime() - Date.parse(since) < disableAfterMs) return;
    const reason = `every delivery failed since ${since}`;
    yield* handleCommand(
      webhookEndpointsStreamType,
      webhookEndpointsStream(endpoint.accountId),
      { type: "DisableWebhook", endpointId: endpoint.endpointId, reason, now },
      WEBHOOK_ACTOR,
    );
    yield* Effect.logWarning(`webhook ${endpoint.endpointId} of account ${endpoint.accountId} disabled: ${reason}`);
  });

/**
 * One attempt, claimed first: the claim (DeliveryAttemptStarted at the stream's revision) is what
 * makes one instance the sender; any other instance's claim meets it and is refused. The message
 * is signed at send time with every secret that signs now (two within a rotation's overlap).
 */
export const attemptDelivery = (worker: string, deliveryId: string) =>
  Effect.gen(function* () {
    const clock = yield* Clock;
    const settings = yield* WebhookSettings;
    const stream = webhookDeliveryStream(deliveryId);
    const startedAt = clock.now();
    const claim = { type: "StartDeliveryAttempt", worker, leaseUntil: new Date(startedAt.getTime() + settings.leaseMs), now: startedAt } as const;
    const claimed = yield* handleCommand(webhookDeliveryStreamType, stream, claim, WEBHOOK_ACTOR).pipe(
      Effect.map((handled) => handled.state),
      // Not due, claimed elsewhere or finished: the index was behind the store.
      Effect.catchTag("CommandRejected", () => Effect.succeed(undefined)),
    );
    if (claimed === undefined || claimed.status !== "sending") return;
    const { accountId, endpointId, messageId, body } = claimed.created;
    const { state } = yield* loadState(webhookEndpointsStreamType, webhookEndpointsStream(accountId));
    const endpoint = state.endpoints.get(endpointId);
    const abandon = (reason: string) =>
      handleCommand(webhookDeliveryStreamType, stream, { type: "AbandonDelivery", worker, reason, now: clock.now() }, WEBHOOK_ACTOR).pipe(
        Effect.catchTag("CommandRejected", () => Effect.void),
        Effect.asVoid,
      );
    if (endpoint === undefined) return yield* abandon("the endpoint was deleted");
    if (endpoint.status === "disabled") return yield* abandon(`the endpoint is disabled: ${endpoint.disabledReason ?? ""}`);
    const crypto = yield* WebhookCrypto;
    const secrets = signingSecrets(endpoint, startedAt).flatMap((sealed) => crypto.unseal(sealed) ?? []);
    if (secrets.length === 0) return yield* abandon("the endpoint's secret cannot be read with this deployment's SERVER_SECRET");
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const signature = secrets.map((secret) => crypto.sign(secret, messageId, timestamp, body)).join(" ");
    const outcome: AttemptOutcome = yield* (yield* WebhookTransport).post({
      url: endpoint.url,
      headers: { "content-type": "application/json", "webhook-id": messageId, "webhook-timestamp": String(timestamp), "webhook-signature": signature },
      body,
    });
    const finishedAt = clock.now();
    yield* handleCommand(
      webhookDeliveryStreamType,
      stream,
      { type: "FinishDeliveryAttempt", worker, schedule: settings.retryScheduleSeconds, now: finishedAt, ...outcome },
      WEBHOOK_ACTOR,
    ).pipe(Effect.catchTag("CommandRejected", (rejected) => Effect.logWarning(`webhook delivery ${deliveryId}: ${rejected.message}`)));
    if (!outcome.ok) yield* disableIfFailingTooLong(endpoint, finishedAt);
  });

/** Every delivery the index finds due now, a few at once. */
export const sendDueDeliveries = (worker: string) =>
  Effect.gen(function* () {
    const due = yield* (yield* WebhookIndex).dueDeliveries((yield* Clock).now().toISOString(), DUE_PAGE);
    yield* Effect.forEach(
      due,
      (delivery) =>
        attemptDelivery(worker, delivery.deliveryId).pipe(
          Effect.catchCause((cause) => Effect.logWarning(`webhook delivery ${delivery.deliveryId}: attempt failed to run`, cause)),
        ),
      { concurrency: SENDING, discard: true },
    );
    return due.length;
  });
