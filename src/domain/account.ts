import { displayPrefix } from "./api-key.ts";
import { accept, type Decider, type Decision, reject } from "./decider.ts";
import { earlierExpiry, hasExpired, type KeyRestrictions, restrictionsProblem } from "./key-restrictions.ts";
import type { PlanId } from "./plan.ts";

/** An account holds a plan and the API keys that act for it. Stream: `account-<accountId>`. */
export const accountStream = (accountId: string): string => `account-${accountId}`;

export type AccountEvent =
  | { readonly type: "AccountOpened"; readonly data: { accountId: string; email: string; name: string; plan: PlanId; at: string } }
  | { readonly type: "AccountPlanChanged"; readonly data: { accountId: string; from: PlanId; to: PlanId; at: string } }
  | {
      readonly type: "ApiKeyIssued";
      /** `restrictions`: all null for keys issued before restrictions existed (schema version 1). */
      readonly data: { accountId: string; keyId: string; name: string; secretHash: string; restrictions: KeyRestrictions; at: string };
    }
  | { readonly type: "ApiKeyRevoked"; readonly data: { accountId: string; keyId: string; at: string } }
  | {
      /**
       * A new key (`newKeyId`) with the old key's name and restrictions; the old one stops at
       * `oldKeyExpiresAt` (the grace's end, or its own earlier expiry).
       */
      readonly type: "ApiKeyRolled";
      readonly data: {
        accountId: string;
        keyId: string;
        newKeyId: string;
        name: string;
        secretHash: string;
        restrictions: KeyRestrictions;
        oldKeyExpiresAt: string;
        at: string;
      };
    };

export type AccountCommand =
  | { readonly type: "OpenAccount"; readonly accountId: string; readonly email: string; readonly name: string; readonly plan: PlanId; readonly now: Date }
  | { readonly type: "ChangePlan"; readonly plan: PlanId; readonly now: Date }
  | {
      readonly type: "IssueApiKey";
      readonly keyId: string;
      readonly name: string;
      readonly secretHash: string;
      readonly restrictions: KeyRestrictions;
      readonly maxActiveKeys: number;
      readonly now: Date;
    }
  | { readonly type: "RevokeApiKey"; readonly keyId: string; readonly now: Date }
  | {
      readonly type: "RollApiKey";
      readonly keyId: string;
      readonly newKeyId: string;
      readonly secretHash: string;
      /** How long the old key keeps working. */
      readonly graceMs: number;
      readonly now: Date;
    };

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly name: string;
  readonly prefix: string;
  readonly secretHash: string;
  readonly createdAt: string;
  readonly restrictions: KeyRestrictions;
}

export type AccountState =
  | { readonly status: "none" }
  | {
      readonly status: "open";
      readonly accountId: string;
      readonly email: string;
      readonly name: string;
      readonly plan: PlanId;
      readonly openedAt: string;
      /** Keys not revoked (an expired one stays until revoked, but counts as gone: see activeKeys). */
      readonly keys: ReadonlyMap<string, ApiKeyRecord>;
      readonly revokedKeyIds: ReadonlySet<string>;
    };

/** The keys that work at `now`: neither revoked nor expired. */
export const activeKeys = (state: Extract<AccountState, { status: "open" }>, now: Date): ReadonlyArray<ApiKeyRecord> =>
  [...state.keys.values()].filter((key) => !hasExpired(key.restrictions, now.getTime()));

const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

const decide = (command: AccountCommand, state: AccountState): Decision<AccountEvent> => {
  const at = command.now.toISOString();
  if (command.type === "OpenAccount") {
    if (state.status !== "none") return reject("ACCOUNT_EXISTS", `account ${command.accountId} already exists`);
    if (!EMAIL_PATTERN.test(command.email)) return reject("INVALID_EMAIL", `not an email address: ${command.email}`);
    const { accountId, email, name, plan } = command;
    return accept({ type: "AccountOpened", data: { accountId, email, name, plan, at } });
  }
  if (state.status === "none") return reject("ACCOUNT_NOT_FOUND", "no such account");
  const accountId = state.accountId;
  switch (command.type) {
    case "ChangePlan":
      return command.plan === state.plan ? accept() : accept({ type: "AccountPlanChanged", data: { accountId, from: state.plan, to: command.plan, at } });
    case "IssueApiKey": {
      if (state.keys.has(command.keyId) || state.revokedKeyIds.has(command.keyId)) {
        return reject("KEY_EXISTS", `key ${command.keyId} already exists`);
      }
      if (activeKeys(state, command.now).length >= command.maxActiveKeys) {
        return reject("KEY_LIMIT_REACHED", `an account may hold at most ${command.maxActiveKeys} keys`);
      }
      const problem = restrictionsProblem(command.restrictions, command.now);
      if (problem !== undefined) return reject("INVALID_RESTRICTIONS", problem);
      return accept({
        type: "ApiKeyIssued",
        data: { accountId, keyId: command.keyId, name: command.name, secretHash: command.secretHash, restrictions: command.restrictions, at },
      });
    }
    case "RollApiKey": {
      const old = state.keys.get(command.keyId);
      if (old === undefined || hasExpired(old.restrictions, command.now.getTime())) return reject("KEY_NOT_FOUND", `no key ${command.keyId} on this account`);
      if (state.keys.has(command.newKeyId) || state.revokedKeyIds.has(command.newKeyId)) return reject("KEY_EXISTS", `key ${command.newKeyId} already exists`);
      if (!Number.isSafeInteger(command.graceMs) || command.graceMs < 0)
        return reject("INVALID_GRACE", `a grace period is a duration, not ${command.graceMs} ms`);
      // Not held to the key cap: the roll replaces a key, and the old one ends with its grace.
      const graceEnds = new Date(command.now.getTime() + command.graceMs).toISOString();
      return accept({
        type: "ApiKeyRolled",
        data: {
          accountId,
          keyId: command.keyId,
          newKeyId: command.newKeyId,
          name: old.name,
          secretHash: command.secretHash,
          restrictions: old.restrictions,
          oldKeyExpiresAt: earlierExpiry(old.restrictions.expiresAt, graceEnds) ?? graceEnds,
          at,
        },
      });
    }
    case "RevokeApiKey":
      if (state.revokedKeyIds.has(command.keyId)) return accept();
      if (!state.keys.has(command.keyId)) return reject("KEY_NOT_FOUND", `no key ${command.keyId} on this account`);
      return accept({ type: "ApiKeyRevoked", data: { accountId, keyId: command.keyId, at } });
  }
};

const evolve = (state: AccountState, event: AccountEvent): AccountState => {
  switch (event.type) {
    case "AccountOpened":
      return {
        status: "open",
        accountId: event.data.accountId,
        email: event.data.email,
        name: event.data.name,
        plan: event.data.plan,
        openedAt: event.data.at,
        keys: new Map(),
        revokedKeyIds: new Set(),
      };
    case "AccountPlanChanged":
      return state.status === "open" ? { ...state, plan: event.data.to } : state;
    case "ApiKeyIssued": {
      if (state.status !== "open") return state;
      const { keyId, name, secretHash, restrictions, at } = event.data;
      const keys = new Map(state.keys);
      keys.set(keyId, { keyId, name, prefix: displayPrefix(keyId), secretHash, createdAt: at, restrictions });
      return { ...state, keys };
    }
    case "ApiKeyRolled": {
      if (state.status !== "open") return state;
      const { keyId, newKeyId, name, secretHash, restrictions, oldKeyExpiresAt, at } = event.data;
      const keys = new Map(state.keys);
      const old = keys.get(keyId);
      if (old !== undefined) keys.set(keyId, { ...old, restrictions: { ...old.restrictions, expiresAt: oldKeyExpiresAt } });
      keys.set(newKeyId, { keyId: newKeyId, name, prefix: displayPrefix(newKeyId), secretHash, createdAt: at, restrictions });
      return { ...state, keys };
    }
    case "ApiKeyRevoked": {
      if (state.status !== "open") return state;
      const keys = new Map(state.keys);
      keys.delete(event.data.keyId);
      return { ...state, keys, revokedKeyIds: new Set(state.revokedKeyIds).add(event.data.keyId) };
    }
  }
};

export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState> = {
  decide,
  evolve,
  initialState: () => ({ status: "none" }),
};
