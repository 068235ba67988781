import { Effect } from "effect";
import { billingPeriodOf } from "../domain/billing-period.ts";
import { type PlanId, PLANS } from "../domain/plan.ts";
import { quotaStream } from "../domain/quota-ledger.ts";
import { Clock } from "../ports/clock.ts";
import { loadState } from "./command-handler.ts";
import { quotaLedgerStreamType } from "./events/quota-events.ts";

/** This month's quota of an account, from its ledger (docs/api-decisions.md: limit/remaining null when unlimited). */
export const monthlyQuota = (accountId: string, planId: PlanId) =>
  Effect.gen(function* () {
    const period = billingPeriodOf((yield* Clock).now());
    const { state } = yield* loadState(quotaLedgerStreamType, quotaStream(accountId, period.id));
    const limit = PLANS[planId].monthlyTransformations;
    return {
      limit,
      used: state.used,
      remaining: limit === null ? null : Math.max(0, limit - state.used),
      period: period.id,
      resetsAt: period.resetsAt.toISOString(),
    };
  });
