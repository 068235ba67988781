import { Effect } from "effect";
import type { Principal } from "../access/authenticate.ts";
import { ServiceSettings } from "../settings.ts";
import { accountSummary } from "./account-summary.ts";
import { monthlyQuotaOfKey } from "./read-monthly-quota.ts";

/**
 * The calling account, its plan, this month's quota and the key in use (docs/api-decisions.md).
 * Steps rather than a generator, as in loadState: this runs on every profile request.
 */
export const getProfile = ({ account, key }: Principal) =>
  Effect.flatMap(ServiceSettings, (settings) =>
    Effect.map(monthlyQuotaOfKey(account.accountId, account.plan, key.keyId), ({ quota, keyUsed }) => ({
      id: account.accountId,
      ...accountSummary(account, settings, quota),
      key: {
        id: key.keyId,
        name: key.name,
        prefix: key.prefix,
        createdAt: key.createdAt,
        ...key.restrictions,
        usage: { used: keyUsed },
      },
    })),
  );
