import { Effect } from "effect";
import { auditAccount } from "../../../../application/audit/audit.ts";
import { parseAuditRange } from "../../../../application/audit/audit-range.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import type { audit } from "./audit-api.ts";

/** The operator's audit of one account (audit-api.ts). */
export const auditHandlers: GroupHandlers<typeof audit, AppServices> = {
  auditAccount: ({ params, query }) => Effect.flatMap(parseAuditRange(query.from, query.to), (range) => auditAccount(params.accountId, range)),
};
