import { describe, expect, it } from "vitest";
import { accountDecider, type AccountEvent } from "../../src/domain/account.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const spec = deciderSpec(accountDecider);
const now = new Date("2026-11-22T10:00:00.000Z");
const at = now.toISOString();
const opened: AccountEvent = { type: "AccountOpened", data: { accountId: "acc_1", email: "a@example.com", name: "A", plan: "free", at } };
const issued = (keyId: string): AccountEvent => ({ type: "ApiKeyIssued", data: { accountId: "acc_1", keyId, name: "ci", secretHash: "hmac-sha256:x", at } });
const issue = (keyId: string, maxActiveKeys = 20) => ({ type: "IssueApiKey" as const, keyId, name: "ci", secretHash: "hmac-sha256:x", maxActiveKeys, now });

describe("account", () => {
  it("opens once, with a valid email", () => {
    spec.given([]).when({ type: "OpenAccount", accountId: "acc_1", email: "a@example.com", name: "A", plan: "free", now }).then([opened]);
    spec.given([opened]).when({ type: "OpenAccount", accountId: "acc_1", email: "a@example.com", name: "A", plan: "free", now }).thenRejects("ACCOUNT_EXISTS");
    spec.given([]).when({ type: "OpenAccount", accountId: "acc_2", email: "not-an-email", name: "", plan: "pro", now }).thenRejects("INVALID_EMAIL");
  });

  it("changes plan, and changing to the same plan records nothing", () => {
    spec
      .given([opened])
      .when({ type: "ChangePlan", plan: "pro", now })
      .then([{ type: "AccountPlanChanged", data: { accountId: "acc_1", from: "free", to: "pro", at } }]);
    spec.given([opened]).when({ type: "ChangePlan", plan: "free", now }).then([]);
    spec.given([]).when({ type: "ChangePlan", plan: "pro", now }).thenRejects("ACCOUNT_NOT_FOUND");
  });

  it("issues keys up to the cap; a revoked key frees a place but its id is never reused", () => {
    spec
      .given([opened])
      .when(issue("k1"))
      .then([issued("k1")]);
    spec
      .given([opened, issued("k1"), issued("k2")])
      .when(issue("k3", 2))
      .thenRejects("KEY_LIMIT_REACHED");
    const revoked: AccountEvent = { type: "ApiKeyRevoked", data: { accountId: "acc_1", keyId: "k1", at } };
    spec
      .given([opened, issued("k1"), issued("k2"), revoked])
      .when(issue("k3", 2))
      .then([issued("k3")]);
    spec
      .given([opened, issued("k1"), revoked])
      .when(issue("k1"))
      .thenRejects("KEY_EXISTS");
  });

  it("revokes a key once; the state keeps only active keys and never a secret", () => {
    const revoked: AccountEvent = { type: "ApiKeyRevoked", data: { accountId: "acc_1", keyId: "k1", at } };
    spec
      .given([opened, issued("k1")])
      .when({ type: "RevokeApiKey", keyId: "k1", now })
      .then([revoked]);
    spec
      .given([opened, issued("k1"), revoked])
      .when({ type: "RevokeApiKey", keyId: "k1", now })
      .then([]);
    spec.given([opened]).when({ type: "RevokeApiKey", keyId: "nope", now }).thenRejects("KEY_NOT_FOUND");
    const state = spec.given([opened, issued("k1"), issued("k2"), revoked]).state();
    expect(state.status === "open" && [...state.keys.keys()]).toEqual(["k2"]);
  });
});
