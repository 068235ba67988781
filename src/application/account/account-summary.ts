import { type PlanId, PLANS } from "../../domain/plan.ts";
import { ratePolicyOf, type ServiceSettingsShape } from "../settings.ts";
import type { MonthlyQuota } from "./read-monthly-quota.ts";

/** What the API's profile and the console both say of an account: who, its plan and features, this month's quota, its rate. */
export const accountSummary = (
  account: { readonly email: string; readonly name: string; readonly plan: PlanId },
  settings: ServiceSettingsShape,
  quota: MonthlyQuota,
) => {
  const plan = PLANS[account.plan];
  const rate = ratePolicyOf(settings, account.plan);
  return {
    email: account.email,
    name: account.name,
    plan: plan.id,
    features: plan.features,
    quota,
    rateLimit: { perMinute: rate.perMinute, burst: rate.burst },
  };
};
