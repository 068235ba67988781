import { Effect } from "effect";
import { billingPeriodOf } from "../../domain/billing-period.ts";
import { type PlanId, PLANS } from "../../domain/plan.ts";
import { quotaStream, usedByKey } from "../../domain/quota-ledger.ts";
import { Clock } from "../../ports/clock.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { EventStore, UndecodableEvent } from "../../ports/event-store.ts";
import { loadState } from "../event-sourcing/command-handler.ts";
import { quotaLedgerStreamType } from "../event-sourcing/events/quota-events.ts";
import type { StreamStateCache } from "../event-sourcing/stream-state-cache.ts";

interface PeriodAt {
  readonly from: number;
  readonly until: number;
  readonly id: string;
  readonly resetsAt: string;
}

/**
 * The month an instant falls in, as the profile shows it: the same all month, so made once per
 * month, not per request (its Dates and ISO string were worth ~0.01 of bench:profile's ratio).
 */
let lastPeriod: PeriodAt | undefined;
const periodAt = (now: Date): PeriodAt => {
  const time = now.getTime();
  if (lastPeriod !== undefined && time >= lastPeriod.from && time < lastPeriod.until) return lastPeriod;
  const period = billingPeriodOf(now);
  lastPeriod = { from: period.startsAt.getTime(), until: period.resetsAt.getTime(), id: period.id, resetsAt: period.resetsAt.toISOString() };
  return lastPeriod;
};

/** This month's quota of an account (docs/api-decisions.md: limit/remaining null when unlimited). */
export interface MonthlyQuota {
  readonly limit: number | null;
  readonly used: number;
  readonly remaining: number | null;
  readonly period: string;
  readonly resetsAt: string;
}

type Read<A> = Effect.Effect<A, DependencyUnavailable | UndecodableEvent, Clock | EventStore | StreamStateCache>;

/** This month's quota of an account, and what one of its keys spent of it, from one read of its ledger. */
export const monthlyQuotaOfKey = (accountId: string, planId: PlanId, keyId: string): Read<{ readonly quota: MonthlyQuota; readonly keyUsed: number }> =>
  Effect.flatMap(Clock, (clock) => {
    const period = periodAt(clock.now());
    const limit = PLANS[planId].monthlyTransformations;
    return Effect.map(loadState(quotaLedgerStreamType, quotaStream(accountId, period.id)), ({ state }) => ({
      quota: {
        limit,
        used: state.used,
        remaining: limit === null ? null : Math.max(0, limit - state.used),
        period: period.id,
        resetsAt: period.resetsAt,
      },
      keyUsed: usedByKey(state, keyId),
    }));
  });

/** This month's quota of an account, from its ledger. */
export const monthlyQuota = (accountId: string, planId: PlanId): Read<MonthlyQuota> =>
  Effect.map(monthlyQuotaOfKey(accountId, planId, ""), ({ quota }) => quota);
