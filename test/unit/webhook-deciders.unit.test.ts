import { describe, expect, it } from "vitest";
import { webhookDeliveryDecider, type WebhookDeliveryEvent } from "../../src/domain/webhook-delivery.ts";
import { signingSecrets, type WebhookEndpointEvent, webhookEndpointsDecider } from "../../src/domain/webhook-endpoints.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const endpoints = deciderSpec(webhookEndpointsDecider);
const deliveries = deciderSpec(webhookDeliveryDecider);
const t0 = new Date("2026-11-28T10:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

const added: WebhookEndpointEvent = {
  type: "WebhookAdded",
  data: {
    accountId: "acc_1",
    endpointId: "wh_1",
    url: "https://example.com/h",
    events: ["job.succeeded", "job.failed"],
    sealedSecret: "s1",
    at: t0.toISOString(),
  },
};
const add = (endpointId: string, limit = 10) =>
  ({ type: "AddWebhook", accountId: "acc_1", endpointId, url: "https://example.com/h", events: ["job.succeeded"], sealedSecret: "s", limit, now: t0 }) as const;

describe("webhook endpoints", () => {
  it("adds an endpoint until the account's cap", () => {
    endpoints
      .given([])
      .when(add("wh_1"))
      .then([
        {
          type: "WebhookAdded",
          data: { accountId: "acc_1", endpointId: "wh_1", url: "https://example.com/h", events: ["job.succeeded"], sealedSecret: "s", at: t0.toISOString() },
        },
      ]);
    endpoints.given([added]).when(add("wh_2", 1)).thenRejects("WEBHOOK_LIMIT_REACHED");
    endpoints.given([added]).when(add("wh_1")).thenRejects("WEBHOOK_EXISTS");
  });

  it("never gives a deleted endpoint's id again, and frees its place", () => {
    const deleted: WebhookEndpointEvent = { type: "WebhookDeleted", data: { accountId: "acc_1", endpointId: "wh_1", at: t0.toISOString() } };
    endpoints.given([added, deleted]).when(add("wh_1")).thenRejects("WEBHOOK_EXISTS");
    expect(endpoints.given([added, deleted]).state().endpoints.size).toBe(0);
    endpoints.given([added, deleted]).when({ type: "DeleteWebhook", endpointId: "wh_1", now: t0 }).thenRejects("WEBHOOK_NOT_FOUND");
  });

  it("signs with both secrets for 24 hours after a rotation, then with the new one", () => {
    endpoints
      .given([added])
      .when({ type: "RotateWebhookSecret", endpointId: "wh_1", sealedSecret: "s2", now: t0 })
      .then([
        {
          type: "WebhookSecretRotated",
          data: { accountId: "acc_1", endpointId: "wh_1", sealedSecret: "s2", previousUntil: at(86_400_000).toISOString(), at: t0.toISOString() },
        },
      ]);
    const rotated: WebhookEndpointEvent = {
      type: "WebhookSecretRotated",
      data: { accountId: "acc_1", endpointId: "wh_1", sealedSecret: "s2", previousUntil: at(86_400_000).toISOString(), at: t0.toISOString() },
    };
    const endpoint = endpoints.given([added, rotated]).state().endpoints.get("wh_1")!;
    expect(signingSecrets(endpoint, at(1000))).toEqual(["s2", "s1"]);
    expect(signingSecrets(endpoint, at(86_400_000))).toEqual(["s2"]);
  });

  it("disables once, with its reason", () => {
    const disable = { type: "DisableWebhook", endpointId: "wh_1", reason: "every delivery failed", now: t0 } as const;
    endpoints
      .given([added])
      .when(disable)
      .then([{ type: "WebhookDisabled", data: { accountId: "acc_1", endpointId: "wh_1", reason: "every delivery failed", at: t0.toISOString() } }]);
    const disabled: WebhookEndpointEvent = { type: "WebhookDisabled", data: { accountId: "acc_1", endpointId: "wh_1", reason: "x", at: t0.toISOString() } };
    endpoints.given([added, disabled]).when(disable).then([]);
    expect(endpoints.given([added, disabled]).state().endpoints.get("wh_1")).toMatchObject({ status: "disabled", disabledReason: "x" });
  });
});

const SCHEDULE = [0, 5, 300];
const createdData = {
  deliveryId: "dlv_1",
  accountId: "acc_1",
  endpointId: "wh_1",
  messageId: "msg_1",
  eventType: "job.succeeded" as const,
  body: "{}",
  at: t0.toISOString(),
};
const created: WebhookDeliveryEvent = { type: "DeliveryCreated", data: { ...createdData, nextAttemptAt: t0.toISOString() } };
const started = (attempt: number, worker = "a", ms = 0): WebhookDeliveryEvent => ({
  type: "DeliveryAttemptStarted",
  data: { deliveryId: "dlv_1", attempt, worker, leaseUntil: at(ms + 60_000).toISOString(), at: at(ms).toISOString() },
});
const failed = (attempt: number, ms: number, next: number | null): WebhookDeliveryEvent => ({
  type: "DeliveryAttemptFinished",
  data: {
    deliveryId: "dlv_1",
    endpointId: "wh_1",
    attempt,
    ok: false,
    statusCode: 500,
    error: null,
    durationMs: 3,
    nextAttemptAt: next === null ? null : at(next).toISOString(),
    at: at(ms).toISOString(),
  },
});
const start = (worker: string, ms: number) => ({ type: "StartDeliveryAttempt", worker, leaseUntil: at(ms + 60_000), now: at(ms) }) as const;
const finish = (worker: string, ms: number, ok: boolean) =>
  ({ type: "FinishDeliveryAttempt", worker, schedule: SCHEDULE, now: at(ms), ok, statusCode: ok ? 200 : 500, error: null, durationMs: 3 }) as const;

describe("webhook deliveries", () => {
  it("is created once: the second creation of the same message is refused", () => {
    deliveries
      .given([])
      .when({ type: "CreateDelivery", ...createdData, schedule: SCHEDULE, now: t0 })
      .then([created]);
    deliveries
      .given([created])
      .when({ type: "CreateDelivery", ...createdData, schedule: SCHEDULE, now: t0 })
      .thenRejects("DELIVERY_EXISTS");
  });

  it("lets one instance claim an attempt; another is refused until the lease passes", () => {
    deliveries
      .given([created])
      .when(start("a", 0))
      .then([started(1)]);
    deliveries
      .given([created, started(1)])
      .when(start("b", 1000))
      .thenRejects("DELIVERY_CLAIMED");
    deliveries
      .given([created, started(1)])
      .when(start("b", 60_000))
      .then([started(2, "b", 60_000)]);
    deliveries
      .given([created, started(1), started(2, "b", 60_000)])
      .when(finish("a", 61_000, true))
      .thenRejects("DELIVERY_LEASE_LOST");
  });

  it("retries on the schedule, then gives up", () => {
    deliveries
      .given([created, started(1)])
      .when(finish("a", 10, false))
      .then([failed(1, 10, 5010)]);
    deliveries
      .given([created, started(1), failed(1, 10, 5010)])
      .when(start("a", 4000))
      .thenRejects("DELIVERY_NOT_DUE");
    const second = [created, started(1), failed(1, 10, 5010), started(2, "a", 5010)];
    deliveries
      .given(second)
      .when(finish("a", 5020, false))
      .then([failed(2, 5020, 305_020)]);
    const third = [...second, failed(2, 5020, 305_020), started(3, "a", 305_020)];
    deliveries
      .given(third)
      .when(finish("a", 305_030, false))
      .then([failed(3, 305_030, null)]);
    expect(deliveries.given([...third, failed(3, 305_030, null)]).state()).toMatchObject({ status: "failed", attempts: 3 });
    deliveries
      .given([...third, failed(3, 305_030, null)])
      .when(start("a", 999_999))
      .thenRejects("DELIVERY_FINISHED");
  });

  it("is sent again on resend, on a fresh schedule, never while an attempt is in flight", () => {
    const gaveUp = [created, started(1), failed(1, 10, null)];
    deliveries
      .given(gaveUp)
      .when({ type: "ResendDelivery", now: at(100) })
      .then([{ type: "DeliveryResent", data: { deliveryId: "dlv_1", at: at(100).toISOString() } }]);
    deliveries
      .given([created, started(1)])
      .when({ type: "ResendDelivery", now: at(100) })
      .thenRejects("DELIVERY_IN_FLIGHT");
    const resent: WebhookDeliveryEvent = { type: "DeliveryResent", data: { deliveryId: "dlv_1", at: at(100).toISOString() } };
    expect(deliveries.given([...gaveUp, resent]).state()).toMatchObject({ status: "pending", failures: 0, nextAttemptAt: at(100).toISOString() });
  });

  it("succeeds on a 2xx", () => {
    deliveries
      .given([created, started(1)])
      .when(finish("a", 10, true))
      .then([
        {
          type: "DeliveryAttemptFinished",
          data: {
            deliveryId: "dlv_1",
            endpointId: "wh_1",
            attempt: 1,
            ok: true,
            statusCode: 200,
            error: null,
            durationMs: 3,
            nextAttemptAt: null,
            at: at(10).toISOString(),
          },
        },
      ]);
  });
});
