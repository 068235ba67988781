import { Effect } from "effect";
import { billingPeriodOf } from "../domain/billing-period.ts";
import { PLANS } from "../domain/plan.ts";
import { quotaLedgerDecider, quotaStream } from "../domain/quota-ledger.ts";
import { Clock } from "../ports/clock.ts";
import type { Principal } from "./authenticate.ts";
import { loadState } from "./command-handler.ts";
import { ratePolicyOf, ServiceSettings } from "./settings.ts";

/** The calling account, its plan, this month's quota and the key in use (decisions.md). */
export const getProfile = (principal: Principal) =>
  Effect.gen(function* () {
    const clock = yield* Clock;
    const { account, key } = principal;
    const plan = PLANS[account.plan];
    const period = billingPeriodOf(clock.now());
    const rate = ratePolicyOf(yield* ServiceSettings, account.plan);
    const { state } = yield* loadState(quotaLedgerDecider, quotaStream(account.accountId, period.id));
    const limit = plan.monthlyTransformations;
    return {
      id: account.accountId,
      email: account.email,
      name: account.name,
      plan: plan.id,
      features: plan.features,
      quota: {
        limit,
        used: state.used,
        remaining: limit === null ? null : Math.max(0, limit - state.used),
        period: period.id,
        resetsAt: period.resetsAt.toISOString(),
      },
      rateLimit: { perMinute: rate.perMinute, burst: rate.burst },
      key: { id: key.keyId, name: key.name, prefix: key.prefix, createdAt: key.createdAt },
    };
  });
