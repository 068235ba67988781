import { Context } from "effect";
import { type PlanId, PLANS, type RatePolicy } from "../domain/plan.ts";

/** Operator-tunable limits the use cases enforce. */
export interface ServiceSettingsShape {
  /** Largest decoded image, in bytes (docs/api-decisions.md: 10 MiB). */
  readonly maxImageBytes: number;
  /** How long a quota reservation holds a unit if its request never finishes. */
  readonly reservationTtlMs: number;
  readonly maxKeysPerAccount: number;
  readonly resultTtlMs: number;
  /** Replaces every plan's per-key rate (operators' load tests); undefined keeps the plans' rates. */
  readonly rateOverride: RatePolicy | undefined;
  /** Jobs (`Prefer: respond-async`) an account may have queued or running at once. */
  readonly maxQueuedJobs: number;
  /** How long a job's claim holds without a renewal: an instance that died is replaced within it. */
  readonly jobLeaseMs: number;
  /** Pages of a document /ocr reads within one request (MAX_DOCUMENT_PAGES). */
  readonly maxDocumentPages: number;
  /** Pages of a document /ocr reads as a job (MAX_JOB_DOCUMENT_PAGES): no proxy's timeout bounds a job, so it may be longer. */
  readonly maxJobDocumentPages: number;
}

export const defaultServiceSettings: ServiceSettingsShape = {
  maxImageBytes: 10 * 1024 * 1024,
  reservationTtlMs: 5 * 60_000,
  maxKeysPerAccount: 20,
  resultTtlMs: 24 * 60 * 60_000,
  rateOverride: undefined,
  maxQueuedJobs: 100,
  jobLeaseMs: 30_000,
  maxDocumentPages: 20,
  maxJobDocumentPages: 200,
};

export const ratePolicyOf = (settings: ServiceSettingsShape, plan: PlanId): RatePolicy => settings.rateOverride ?? PLANS[plan].rate;

export class ServiceSettings extends Context.Service<ServiceSettings, ServiceSettingsShape>()("ServiceSettings") {}
