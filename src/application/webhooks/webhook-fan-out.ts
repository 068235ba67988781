import { Effect } from "effect";
import { webhookDeliveryStream } from "../../domain/webhook-delivery.ts";
import { webhookEndpointsStream } from "../../domain/webhook-endpoints.ts";
import { Clock } from "../../ports/clock.ts";
import { WebhookCrypto } from "../../ports/webhook-crypto.ts";
import { type JobEnd, WebhookIndex } from "../../ports/webhook-index.ts";
import { handleCommand, loadState } from "../event-sourcing/command-handler.ts";
import { webhookDeliveryStreamType, webhookEndpointsStreamType } from "../event-sourcing/events/webhook-events.ts";
import { jobEndPayload } from "./webhook-message.ts";
import { WebhookSettings } from "./webhook-settings.ts";

export const WEBHOOK_ACTOR = { actor: { kind: "service", task: "webhook delivery" } } as const;

const FAN_OUT_PAGE = 100;

/**
 * One delivery per endpoint of the job's account that was there when the job ended, is active and
 * wants the event. The delivery's id comes from the endpoint and the job's event, so every instance
 * (and a rebuilt index) names the same one, and the store's "no stream" lets only the first create it.
 */
const deliveriesFor = (end: JobEnd) =>
  Effect.gen(function* () {
    const { state } = yield* loadState(webhookEndpointsStreamType, webhookEndpointsStream(end.accountId));
    const crypto = yield* WebhookCrypto;
    const { retryScheduleSeconds } = yield* WebhookSettings;
    const now = (yield* Clock).now();
    const body = jobEndPayload(end);
    const owed = [...state.endpoints.values()].filter(
      (endpoint) => endpoint.status === "active" && endpoint.events.includes(end.eventType) && endpoint.createdAt <= end.at,
    );
    yield* Effect.forEach(
      owed,
      (endpoint) => {
        const deliveryId = `dlv_${crypto.digest(`${endpoint.endpointId}\n${end.eventId}`).slice(0, 32)}`;
        const command = {
          type: "CreateDelivery",
          deliveryId,
          accountId: end.accountId,
          endpointId: endpoint.endpointId,
          messageId: `msg_${deliveryId.slice(4)}`,
          eventType: end.eventType,
          body,
          schedule: retryScheduleSeconds,
          now,
        } as const;
        return handleCommand(webhookDeliveryStreamType, webhookDeliveryStream(deliveryId), command, WEBHOOK_ACTOR).pipe(
          // Another instance (or this one, before a restart) made it first.
          Effect.catchTag("CommandRejected", () => Effect.void),
        );
      },
      { discard: true },
    );
  });

/** Turns the job ends the index holds into deliveries; each leaves the index once its deliveries exist. */
export const fanOutJobEnds = Effect.gen(function* () {
  const index = yield* WebhookIndex;
  const ends = yield* index.pendingJobEnds(FAN_OUT_PAGE);
  yield* Effect.forEach(ends, (end) => Effect.andThen(deliveriesFor(end), index.jobEndHandled(end.eventId)), { discard: true });
  return ends.length;
});
