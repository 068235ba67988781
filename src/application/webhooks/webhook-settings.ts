import { Context } from "effect";

/** Operator-tunable limits of webhooks (WEBHOOK_* variables). */
export interface WebhookSettingsShape {
  /** Endpoints an account may have at once. */
  readonly maxEndpoints: number;
  /** Seconds before the first attempt, then after each failure (Standard Webhooks: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
  readonly retryScheduleSeconds: ReadonlyArray<number>;
  /** An endpoint whose attempts have all failed for this long is disabled. */
  readonly disableAfterMs: number;
  /** How long a claimed attempt is its instance's: longer than the send's timeout. */
  readonly leaseMs: number;
  /** How often the sender looks for due deliveries. */
  readonly pollMs: number;
}

export const DEFAULT_RETRY_SCHEDULE_SECONDS: ReadonlyArray<number> = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

export const defaultWebhookSettings: WebhookSettingsShape = {
  maxEndpoints: 10,
  retryScheduleSeconds: DEFAULT_RETRY_SCHEDULE_SECONDS,
  disableAfterMs: 5 * 24 * 60 * 60_000,
  leaseMs: 60_000,
  pollMs: 1000,
};

export class WebhookSettings extends Context.Service<WebhookSettings, WebhookSettingsShape>()("WebhookSettings") {}
