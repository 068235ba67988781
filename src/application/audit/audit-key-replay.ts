import type { AccountEvent } from "../../domain/account.ts";
import type { AuditKey } from "./audit-report.ts";

export interface ReplayedKeys {
  readonly account: { email: string; name: string; plan: string; openedAt: string } | undefined;
  readonly keys: ReadonlyMap<string, AuditKey>;
}

/** The key lifecycle, replayed independently of the account decider (which forgets revoked keys). */
export const replayKeys = (events: ReadonlyArray<AccountEvent>): ReplayedKeys => {
  let account: ReplayedKeys["account"];
  const keys = new Map<string, AuditKey>();
  for (const event of events) {
    switch (event.type) {
      case "AccountOpened":
        account = { email: event.data.email, name: event.data.name, plan: event.data.plan, openedAt: event.data.at };
        break;
      case "AccountPlanChanged":
        if (account) account = { ...account, plan: event.data.to };
        break;
      case "ApiKeyIssued":
        if (!keys.has(event.data.keyId))
          keys.set(event.data.keyId, { keyId: event.data.keyId, name: event.data.name, createdAt: event.data.at, revokedAt: null });
        break;
      case "ApiKeyRolled":
        if (!keys.has(event.data.newKeyId))
          keys.set(event.data.newKeyId, { keyId: event.data.newKeyId, name: event.data.name, createdAt: event.data.at, revokedAt: null });
        break;
      case "ApiKeyRevoked": {
        const key = keys.get(event.data.keyId);
        if (key && key.revokedAt === null) keys.set(key.keyId, { ...key, revokedAt: event.data.at });
        break;
      }
    }
  }
  return { account, keys };
};
