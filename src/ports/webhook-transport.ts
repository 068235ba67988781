import { Context, type Effect } from "effect";
import type { AttemptOutcome } from "../domain/webhook-delivery.ts";

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Reaching customers' endpoints. Only targets the deployment allows are reached (https, no
 * loopback, private, link-local… address), checked when an endpoint is registered and again for
 * every address a delivery connects to.
 */
export interface WebhookTransportShape {
  /** Why the url may not be a target (its syntax, its scheme, or an address its name resolves to); undefined when it may. */
  readonly targetProblem: (url: string) => Effect.Effect<string | undefined>;
  /** One POST: a 2xx within the timeout is ok; anything else (a redirect included) is a failed attempt, never an error. */
  readonly post: (request: WebhookRequest) => Effect.Effect<AttemptOutcome>;
}

export class WebhookTransport extends Context.Service<WebhookTransport, WebhookTransportShape>()("WebhookTransport") {}
