import { Effect } from "effect";
import { PLANS } from "../domain/plan.ts";
import type { Principal } from "./authenticate.ts";
import { monthlyQuota } from "./monthly-quota.ts";
import { ratePolicyOf, ServiceSettings } from "./settings.ts";

/**
 * The calling account, its plan, this month's quota and the key in use (docs/api-decisions.md).
 * Steps rather than a generator, as in loadState: this runs on every profile request.
 */
export const getProfile = ({ account, key }: Principal) =>
  Effect.flatMap(ServiceSettings, (settings) => {
    const plan = PLANS[account.plan];
    const rate = ratePolicyOf(settings, account.plan);
    return Effect.map(monthlyQuota(account.accountId, plan.id), (quota) => ({
      id: account.accountId,
      email: account.email,
      name: account.name,
      plan: plan.id,
      features: plan.features,
      quota,
      rateLimit: { perMinute: rate.perMinute, burst: rate.burst },
      key: { id: key.keyId, name: key.name, prefix: key.prefix, createdAt: key.createdAt },
    }));
  });
