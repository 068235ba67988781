import { Effect } from "effect";
import { ReceiptLog } from "../../ports/receipt-log.ts";
import type { Principal } from "../access/authenticate.ts";
import { ServiceSettings } from "../settings.ts";
import { accountSummary } from "./account-summary.ts";
import { monthlyQuotaOfKey } from "./read-monthly-quota.ts";

/**
 * The calling account, its plan, this month's quota and the key in use (docs/api-decisions.md).
 * Steps rather than a generator, as in loadState: this runs on every profile request.
 */
export const getProfile = ({ account, key }: Principal) =>
  Effect.flatMap(Effect.all([ServiceSettings, Effect.flatMap(ReceiptLog, (log) => log.published)]), ([settings, published]) =>
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
      // An edited store withholds the receipts log: the quota above is then not backed by receipts.
      receipts: { status: published ? ("published" as const) : ("withheld" as const) },
    })),
  );
