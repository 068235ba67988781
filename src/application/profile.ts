import { Effect } from "effect";
import { PLANS } from "../domain/plan.ts";
import type { Principal } from "./authenticate.ts";
import { monthlyQuota } from "./monthly-quota.ts";
import { ratePolicyOf, ServiceSettings } from "./settings.ts";

/** The calling account, its plan, this month's quota and the key in use (docs/api-decisions.md). */
export const getProfile = (principal: Principal) =>
  Effect.gen(function* () {
    const { account, key } = principal;
    const plan = PLANS[account.plan];
    const rate = ratePolicyOf(yield* ServiceSettings, account.plan);
    return {
      id: account.accountId,
      email: account.email,
      name: account.name,
      plan: plan.id,
      features: plan.features,
      quota: yield* monthlyQuota(account.accountId, plan.id),
      rateLimit: { perMinute: rate.perMinute, burst: rate.burst },
      key: { id: key.keyId, name: key.name, prefix: key.prefix, createdAt: key.createdAt },
    };
  });
