import { accept, type Decider, type Decision, reject } from "./decider.ts";
import type { WebhookEventType } from "./webhook-endpoints.ts";

/**
 * One message to one endpoint, and every attempt to deliver it. Stream
 * `webhook-delivery-<deliveryId>`, the id derived from the endpoint and the job event, so two
 * instances reacting to the same event create it once (the first append at "no stream" wins).
 * An attempt is claimed before it is made (a lease): one instance sends it; if that instance dies,
 * another claims it again once the lease has passed. Retries follow `schedule` (seconds): its
 * first entry is the wait before the first attempt, entry k the wait after the k-th failure.
 */
export const webhookDeliveryStream = (deliveryId: string): string => `webhook-delivery-${deliveryId}`;

export type DeliveryStatus = "pending" | "sending" | "succeeded" | "failed" | "abandoned";

export interface DeliveryCreatedData {
  readonly deliveryId: string;
  readonly accountId: string;
  readonly endpointId: string;
  /** The `webhook-id` header: the same on every attempt. */
  readonly messageId: string;
  readonly eventType: WebhookEventType;
  /** The payload as sent, byte for byte on every attempt. */
  readonly body: string;
  readonly at: string;
}

export interface AttemptOutcome {
  readonly ok: boolean;
  /** The receiver's status code; null when no response came. */
  readonly statusCode: number | null;
  /** The network error's class (timeout, refused, forbidden address…); null when a response came. */
  readonly error: string | null;
  readonly durationMs: number;
}

export type WebhookDeliveryEvent =
  | { readonly type: "DeliveryCreated"; readonly data: DeliveryCreatedData & { nextAttemptAt: string } }
  | { readonly type: "DeliveryAttemptStarted"; readonly data: { deliveryId: string; attempt: number; worker: string; leaseUntil: string; at: string } }
  | {
      readonly type: "DeliveryAttemptFinished";
      readonly data: AttemptOutcome & { deliveryId: string; endpointId: string; attempt: number; nextAttemptAt: string | null; at: string };
    }
  | { readonly type: "DeliveryResent"; readonly data: { deliveryId: string; at: string } }
  | { readonly type: "DeliveryAbandoned"; readonly data: { deliveryId: string; reason: string; at: string } };

export type WebhookDeliveryCommand =
  | ({ readonly type: "CreateDelivery"; readonly schedule: ReadonlyArray<number>; readonly now: Date } & Omit<DeliveryCreatedData, "at">)
  | { readonly type: "StartDeliveryAttempt"; readonly worker: string; readonly leaseUntil: Date; readonly now: Date }
  | ({ readonly type: "FinishDeliveryAttempt"; readonly worker: string; readonly schedule: ReadonlyArray<number>; readonly now: Date } & AttemptOutcome)
  | { readonly type: "ResendDelivery"; readonly now: Date }
  | { readonly type: "AbandonDelivery"; readonly worker: string; readonly reason: string; readonly now: Date };

export type WebhookDeliveryState =
  | { readonly status: "none" }
  | {
      readonly status: DeliveryStatus;
      readonly created: DeliveryCreatedData;
      /** Attempts made, all rounds together. */
      readonly attempts: number;
      /** Failures since the delivery was created or last resent: where it stands on the schedule. */
      readonly failures: number;
      readonly nextAttemptAt: string | undefined;
      readonly worker: string | undefined;
      readonly leaseUntil: string | undefined;
      readonly last: (AttemptOutcome & { readonly at: string }) | undefined;
    };

type Known = Exclude<WebhookDeliveryState, { readonly status: "none" }>;

const after = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

const leaseHeld = (state: Known, now: Date) => state.status === "sending" && state.leaseUntil !== undefined && Date.parse(state.leaseUntil) > now.getTime();

const decide = (command: WebhookDeliveryCommand, state: WebhookDeliveryState): Decision<WebhookDeliveryEvent> => {
  const at = command.now.toISOString();
  if (command.type === "CreateDelivery") {
    if (state.status !== "none") return reject("DELIVERY_EXISTS", "this message is already on its way");
    const { type: _, now: __, schedule, ...data } = command;
    return accept({ type: "DeliveryCreated", data: { ...data, at, nextAttemptAt: after(command.now, schedule[0] ?? 0) } });
  }
  if (state.status === "none") return reject("DELIVERY_NOT_FOUND", "no such delivery");
  const { deliveryId, endpointId } = state.created;
  switch (command.type) {
    case "StartDeliveryAttempt":
      if (leaseHeld(state, command.now)) return reject("DELIVERY_CLAIMED", `delivery ${deliveryId} is being sent elsewhere`);
      if (state.status !== "pending" && state.status !== "sending") return reject("DELIVERY_FINISHED", `delivery ${deliveryId} is ${state.status}`);
      if (state.status === "pending" && (state.nextAttemptAt === undefined || Date.parse(state.nextAttemptAt) > command.now.getTime())) {
        return reject("DELIVERY_NOT_DUE", `delivery ${deliveryId} is due at ${state.nextAttemptAt}`);
      }
      return accept({
        type: "DeliveryAttemptStarted",
        data: { deliveryId, attempt: state.attempts + 1, worker: command.worker, leaseUntil: command.leaseUntil.toISOString(), at },
      });
    case "FinishDeliveryAttempt": {
      if (state.status !== "sending" || state.worker !== command.worker)
        return reject("DELIVERY_LEASE_LOST", `delivery ${deliveryId} is not held by ${command.worker}`);
      const wait = command.ok ? undefined : command.schedule[state.failures + 1];
      const { ok, statusCode, error, durationMs } = command;
      return accept({
        type: "DeliveryAttemptFinished",
        data: {
          deliveryId,
          endpointId,
          attempt: state.attempts,
          ok,
          statusCode,
          error,
          durationMs,
          nextAttemptAt: wait === undefined ? null : after(command.now, wait),
          at,
        },
      });
    }
    case "ResendDelivery":
      if (leaseHeld(state, command.now)) return reject("DELIVERY_IN_FLIGHT", `delivery ${deliveryId} is being sent right now`);
      return accept({ type: "DeliveryResent", data: { deliveryId, at } });
    case "AbandonDelivery":
      if (state.status !== "pending" && !(state.status === "sending" && state.worker === command.worker)) {
        return reject("DELIVERY_FINISHED", `delivery ${deliveryId} is ${state.status}`);
      }
      return accept({ type: "DeliveryAbandoned", data: { deliveryId, reason: command.reason, at } });
  }
};

const evolve = (state: WebhookDeliveryState, event: WebhookDeliveryEvent): WebhookDeliveryState => {
  if (event.type === "DeliveryCreated") {
    const { nextAttemptAt, ...created } = event.data;
    return { status: "pending", created, attempts: 0, failures: 0, nextAttemptAt, worker: undefined, leaseUntil: undefined, last: undefined };
  }
  if (state.status === "none") return state;
  switch (event.type) {
    case "DeliveryAttemptStarted":
      return { ...state, status: "sending", attempts: event.data.attempt, worker: event.data.worker, leaseUntil: event.data.leaseUntil };
    case "DeliveryAttemptFinished": {
      const { ok, statusCode, error, durationMs, nextAttemptAt, at } = event.data;
      const status: DeliveryStatus = ok ? "succeeded" : nextAttemptAt === null ? "failed" : "pending";
      return {
        ...state,
        status,
        failures: ok ? state.failures : state.failures + 1,
        nextAttemptAt: nextAttemptAt ?? undefined,
        worker: undefined,
        leaseUntil: undefined,
        last: { ok, statusCode, error, durationMs, at },
      };
    }
    case "DeliveryResent":
      return { ...state, status: "pending", failures: 0, nextAttemptAt: event.data.at, worker: undefined, leaseUntil: undefined };
    case "DeliveryAbandoned":
      return { ...state, status: "abandoned", nextAttemptAt: undefined, worker: undefined, leaseUntil: undefined };
  }
};

export const webhookDeliveryDecider: Decider<WebhookDeliveryCommand, WebhookDeliveryEvent, WebhookDeliveryState> = {
  decide,
  evolve,
  initialState: () => ({ status: "none" }),
};
