import { Effect } from "effect";
import { UsageProjection } from "../../ports/projections.ts";
import { getAccount, listKeys } from "../access/accounts.ts";
import { ServiceSettings } from "../settings.ts";
import { accountSummary } from "./account-summary.ts";
import { monthlyQuota } from "./read-monthly-quota.ts";

/**
 * What the account console shows its holder: the account from its stream (so a change made a
 * moment ago shows), this month's quota from the ledger, and activity from the usage projection.
 */
export const RECENT_REQUESTS_SHOWN = 50;

export const consoleView = (accountId: string) =>
  Effect.gen(function* () {
    const account = yield* getAccount(accountId);
    const quota = yield* monthlyQuota(accountId, account.plan);
    const { value: activity } = yield* (yield* UsageProjection).activityOf(accountId, { period: quota.period, recent: RECENT_REQUESTS_SHOWN });
    const lastTransformation = new Map(activity.lastUsed.map(({ keyId, at }) => [keyId, at]));
    const keyNames = new Map([...account.keys.values()].map((key) => [key.keyId, key.name]));
    // The later of the key's last noted request (any route) and its last transformation (the usage projection).
    const later = (a: string | null, b: string | undefined) => (b !== undefined && (a === null || b > a) ? b : a);
    return {
      accountId,
      ...accountSummary(account, yield* ServiceSettings, quota),
      keys: (yield* listKeys(accountId)).map((key) => ({ ...key, lastUsedAt: later(key.lastUsedAt, lastTransformation.get(key.id)) })),
      daily: activity.daily,
      recent: activity.recent.map((request) => ({ ...request, keyName: keyNames.get(request.keyId) ?? null })),
    };
  });

export type ConsoleView = Effect.Success<ReturnType<typeof consoleView>>;
