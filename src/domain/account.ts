import { displayPrefix } from "./api-key.ts";
import { accept, type Decider, type Decision, reject } from "./decider.ts";
import type { PlanId } from "./plan.ts";

/** An account holds a plan and the API keys that act for it. Stream: `account-<accountId>`. */
export const accountStream = (accountId: string): string => `account-${accountId}`;

export type AccountEvent =
  | { readonly type: "AccountOpened"; readonly data: { accountId: string; email: string; name: string; plan: PlanId; at: string } }
  | { readonly type: "AccountPlanChanged"; readonly data: { accountId: string; from: PlanId; to: PlanId; at: string } }
  | {
      readonly type: "ApiKeyIssued";
      readonly data: { accountId: string; keyId: string; name: string; secretHash: string; at: string };
    }
  | { readonly type: "ApiKeyRevoked"; readonly data: { accountId: string; keyId: string; at: string } };

export type AccountCommand =
  | { readonly type: "OpenAccount"; readonly accountId: string; readonly email: string; readonly name: string; readonly plan: PlanId; readonly now: Date }
  | { readonly type: "ChangePlan"; readonly plan: PlanId; readonly now: Date }
  | {
      readonly type: "IssueApiKey";
      readonly keyId: string;
      readonly name: string;
      readonly secretHash: string;
      readonly maxActiveKeys: number;
      readonly now: Date;
    }
  | { readonly type: "RevokeApiKey"; readonly keyId: string; readonly now: Date };

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly name: string;
  readonly prefix: string;
  readonly secretHash: string;
  readonly createdAt: string;
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
      /** Active keys only: a revoked key is gone from the account's point of view. */
      readonly keys: ReadonlyMap<string, ApiKeyRecord>;
      readonly revokedKeyIds: ReadonlySet<string>;
    };

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
    case "IssueApiKey":
      if (state.keys.has(command.keyId) || state.revokedKeyIds.has(command.keyId)) {
        return reject("KEY_EXISTS", `key ${command.keyId} already exists`);
      }
      if (state.keys.size >= command.maxActiveKeys) {
        return reject("KEY_LIMIT_REACHED", `an account may hold at most ${command.maxActiveKeys} keys`);
      }
      return accept({
        type: "ApiKeyIssued",
        data: { accountId, keyId: command.keyId, name: command.name, secretHash: command.secretHash, at },
      });
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
      const { keyId, name, secretHash, at } = event.data;
      const keys = new Map(state.keys);
      keys.set(keyId, { keyId, name, prefix: displayPrefix(keyId), secretHash, createdAt: at });
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
