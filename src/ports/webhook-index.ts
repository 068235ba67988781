import { Context, type Effect } from "effect";
import type { DeliveryStatus } from "../domain/webhook-delivery.ts";
import type { WebhookEventType } from "../domain/webhook-endpoints.ts";
import type { DependencyUnavailable } from "./errors.ts";
import type { ProjectionShape } from "./projections.ts";

/** A job's end that may still owe its account's endpoints a message. */
export interface JobEnd {
  /** The store's id of the JobSucceeded/JobFailed event: with the endpoint, it names the delivery. */
  readonly eventId: string;
  readonly accountId: string;
  readonly eventType: WebhookEventType;
  readonly jobId: string;
  readonly operation: string;
  readonly at: string;
  readonly error: { readonly code: string; readonly message: string } | undefined;
}

/** One delivery as the index holds it. */
export interface IndexedDelivery {
  readonly deliveryId: string;
  readonly accountId: string;
  readonly endpointId: string;
  readonly eventType: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
}

/**
 * The index webhooks run on, built from the store (the only truth): job ends not yet turned into
 * deliveries, and the deliveries with when each is due. Two projections, each with its checkpoint.
 */
export interface WebhookIndexShape {
  /** Follows `job-*` streams: their JobSucceeded/JobFailed. */
  readonly jobEnds: ProjectionShape;
  /** Follows `webhook-delivery-*` streams. */
  readonly deliveries: ProjectionShape;
  readonly pendingJobEnds: (limit: number) => Effect.Effect<ReadonlyArray<JobEnd>, DependencyUnavailable>;
  /** Its deliveries exist (or it owes none): it leaves the index. */
  readonly jobEndHandled: (eventId: string) => Effect.Effect<void, DependencyUnavailable>;
  /** Pending deliveries due at `now`, and those being sent whose lease has passed; the oldest first. */
  readonly dueDeliveries: (now: string, limit: number) => Effect.Effect<ReadonlyArray<IndexedDelivery>, DependencyUnavailable>;
  readonly recentDeliveries: (endpointId: string, limit: number) => Effect.Effect<ReadonlyArray<IndexedDelivery>, DependencyUnavailable>;
  /** The first failed attempt since the endpoint's last success; undefined while it is not failing. */
  readonly failingSince: (endpointId: string) => Effect.Effect<string | undefined, DependencyUnavailable>;
}

export class WebhookIndex extends Context.Service<WebhookIndex, WebhookIndexShape>()("WebhookIndex") {}
