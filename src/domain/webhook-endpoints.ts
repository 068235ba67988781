import { accept, type Decider, type Decision, reject } from "./decider.ts";

/**
 * An account's webhook endpoints (Standard Webhooks). All of one account's endpoints are one
 * stream, `webhooks-<accountId>`, so the cap is decided on one state: two registrations racing
 * meet the store's expected revision, never both pass it. A secret is kept sealed (encrypted by
 * the adapter behind WebhookCrypto): the decider only carries it.
 */
export const webhookEndpointsStream = (accountId: string): string => `webhooks-${accountId}`;

export const WEBHOOK_EVENT_TYPES = ["job.succeeded", "job.failed"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** After a rotation the old secret still signs for this long, beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60_000;

export interface WebhookEndpoint {
  readonly endpointId: string;
  readonly accountId: string;
  readonly url: string;
  readonly events: ReadonlyArray<WebhookEventType>;
  readonly createdAt: string;
  readonly sealedSecret: string;
  /** The secret before the last rotation, and until when it still signs. */
  readonly previous: { readonly sealedSecret: string; readonly until: string } | undefined;
  readonly status: "active" | "disabled";
  readonly disabledReason: string | undefined;
}

export type WebhookEndpointEvent =
  | {
      readonly type: "WebhookAdded";
      readonly data: { accountId: string; endpointId: string; url: string; events: ReadonlyArray<WebhookEventType>; sealedSecret: string; at: string };
    }
  | { readonly type: "WebhookSecretRotated"; readonly data: { accountId: string; endpointId: string; sealedSecret: string; previousUntil: string; at: string } }
  | { readonly type: "WebhookDisabled"; readonly data: { accountId: string; endpointId: string; reason: string; at: string } }
  | { readonly type: "WebhookDeleted"; readonly data: { accountId: string; endpointId: string; at: string } };

export type WebhookEndpointCommand =
  | {
      readonly type: "AddWebhook";
      readonly accountId: string;
      readonly endpointId: string;
      readonly url: string;
      readonly events: ReadonlyArray<WebhookEventType>;
      readonly sealedSecret: string;
      /** Endpoints an account may have at once. */
      readonly limit: number;
      readonly now: Date;
    }
  | { readonly type: "RotateWebhookSecret"; readonly endpointId: string; readonly sealedSecret: string; readonly now: Date }
  | { readonly type: "DisableWebhook"; readonly endpointId: string; readonly reason: string; readonly now: Date }
  | { readonly type: "DeleteWebhook"; readonly endpointId: string; readonly now: Date };

export interface WebhookEndpointsState {
  readonly endpoints: ReadonlyMap<string, WebhookEndpoint>;
  /** Ids once used: a deleted endpoint's id is never given to another. */
  readonly usedIds: ReadonlySet<string>;
}

/** The secrets that sign a message sent at `now`: the current one, and the previous one within its overlap. */
export const signingSecrets = (endpoint: WebhookEndpoint, now: Date): ReadonlyArray<string> =>
  endpoint.previous !== undefined && Date.parse(endpoint.previous.until) > now.getTime()
    ? [endpoint.sealedSecret, endpoint.previous.sealedSecret]
    : [endpoint.sealedSecret];

const decide = (command: WebhookEndpointCommand, state: WebhookEndpointsState): Decision<WebhookEndpointEvent> => {
  const at = command.now.toISOString();
  if (command.type === "AddWebhook") {
    if (state.usedIds.has(command.endpointId)) return reject("WEBHOOK_EXISTS", `webhook ${command.endpointId} already exists`);
    if (state.endpoints.size >= command.limit) {
      return reject("WEBHOOK_LIMIT_REACHED", `An account keeps at most ${command.limit} webhook endpoints; delete one first.`);
    }
    const { accountId, endpointId, url, events, sealedSecret } = command;
    return accept({ type: "WebhookAdded", data: { accountId, endpointId, url, events, sealedSecret, at } });
  }
  const endpoint = state.endpoints.get(command.endpointId);
  if (endpoint === undefined) return reject("WEBHOOK_NOT_FOUND", `no webhook ${command.endpointId}`);
  const { accountId, endpointId } = endpoint;
  switch (command.type) {
    case "RotateWebhookSecret":
      return accept({
        type: "WebhookSecretRotated",
        data: {
          accountId,
          endpointId,
          sealedSecret: command.sealedSecret,
          previousUntil: new Date(command.now.getTime() + SECRET_OVERLAP_MS).toISOString(),
          at,
        },
      });
    case "DisableWebhook":
      // Disabled once: a second reason (another instance's, racing) adds nothing.
      return endpoint.status === "disabled" ? accept() : accept({ type: "WebhookDisabled", data: { accountId, endpointId, reason: command.reason, at } });
    case "DeleteWebhook":
      return accept({ type: "WebhookDeleted", data: { accountId, endpointId, at } });
  }
};

const evolve = (state: WebhookEndpointsState, event: WebhookEndpointEvent): WebhookEndpointsState => {
  const endpoints = new Map(state.endpoints);
  const { endpointId } = event.data;
  const endpoint = endpoints.get(endpointId);
  switch (event.type) {
    case "WebhookAdded": {
      const { accountId, url, events, sealedSecret, at } = event.data;
      endpoints.set(endpointId, {
        endpointId,
        accountId,
        url,
        events,
        createdAt: at,
        sealedSecret,
        previous: undefined,
        status: "active",
        disabledReason: undefined,
      });
      return { endpoints, usedIds: new Set([...state.usedIds, endpointId]) };
    }
    case "WebhookSecretRotated":
      if (endpoint === undefined) return state;
      endpoints.set(endpointId, {
        ...endpoint,
        sealedSecret: event.data.sealedSecret,
        previous: { sealedSecret: endpoint.sealedSecret, until: event.data.previousUntil },
      });
      return { ...state, endpoints };
    case "WebhookDisabled":
      if (endpoint === undefined) return state;
      endpoints.set(endpointId, { ...endpoint, status: "disabled", disabledReason: event.data.reason });
      return { ...state, endpoints };
    case "WebhookDeleted":
      endpoints.delete(endpointId);
      return { ...state, endpoints };
  }
};

export const webhookEndpointsDecider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointsState> = {
  decide,
  evolve,
  initialState: () => ({ endpoints: new Map(), usedIds: new Set() }),
};
