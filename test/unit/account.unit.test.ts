import { describe, expect, it } from "vitest";
import { accountDecider, type AccountEvent, activeKeys } from "../../src/domain/account.ts";
import { type KeyRestrictions, UNRESTRICTED } from "../../src/domain/key-restrictions.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const spec = deciderSpec(accountDecider);
const now = new Date("2026-11-22T10:00:00.000Z");
const at = now.toISOString();
const opened: AccountEvent = { type: "AccountOpened", data: { accountId: "acc_1", email: "a@example.com", name: "A", plan: "free", at } };
const issued = (keyId: string, restrictions: KeyRestrictions = UNRESTRICTED): AccountEvent => ({
  type: "ApiKeyIssued",
  data: { accountId: "acc_1", keyId, name: "ci", secretHash: "hmac-sha256:x", restrictions, at },
});
const issue = (keyId: string, maxActiveKeys = 20, restrictions: KeyRestrictions = UNRESTRICTED) => ({
  type: "IssueApiKey" as const,
  keyId,
  name: "ci",
  secretHash: "hmac-sha256:x",
  restrictions,
  maxActiveKeys,
  now,
});
const later = (ms: number) => new Date(now.getTime() + ms);
const restricted: KeyRestrictions = {
  scopes: ["ocr"],
  expiresAt: later(30 * 86_400_000).toISOString(),
  allowedIps: ["203.0.113.0/24", "2001:db8::/32"],
  monthlyLimit: 2,
};

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

  it("issues a key with its restrictions, and refuses restrictions that cannot hold", () => {
    spec
      .given([opened])
      .when(issue("k1", 20, restricted))
      .then([issued("k1", restricted)]);
    const refused = (restrictions: Partial<KeyRestrictions>) => spec.given([opened]).when(issue("k1", 20, { ...UNRESTRICTED, ...restrictions }));
    refused({ scopes: [] }).thenRejects("INVALID_RESTRICTIONS");
    refused({ scopes: ["ocr", "ocr"] }).thenRejects("INVALID_RESTRICTIONS");
    refused({ scopes: ["admin" as never] }).thenRejects("INVALID_RESTRICTIONS");
    refused({ expiresAt: at }).thenRejects("INVALID_RESTRICTIONS");
    refused({ expiresAt: "tomorrow" }).thenRejects("INVALID_RESTRICTIONS");
    refused({ allowedIps: [] }).thenRejects("INVALID_RESTRICTIONS");
    refused({ monthlyLimit: 0 }).thenRejects("INVALID_RESTRICTIONS");
    refused({ monthlyLimit: 1.5 }).thenRejects("INVALID_RESTRICTIONS");
  });

  it("counts an expired key as gone: it frees its place under the cap and cannot be rolled", () => {
    const soon = issued("k1", { ...UNRESTRICTED, expiresAt: later(1000).toISOString() });
    spec
      .given([opened, soon])
      .when({ ...issue("k2", 1), now: later(1000) })
      .then([{ ...issued("k2"), data: { ...issued("k2").data, at: later(1000).toISOString() } } as AccountEvent]);
    spec.given([opened, soon]).when(issue("k2", 1)).thenRejects("KEY_LIMIT_REACHED");
    spec
      .given([opened, soon])
      .when({ type: "RollApiKey", keyId: "k1", newKeyId: "k2", secretHash: "h2", graceMs: 0, now: later(1000) })
      .thenRejects("KEY_NOT_FOUND");
    const state = spec.given([opened, soon]).state();
    expect(state.status === "open" && activeKeys(state, later(999)).map((key) => key.keyId)).toEqual(["k1"]);
    expect(state.status === "open" && activeKeys(state, later(1000))).toEqual([]);
  });

  it("rolls a key: the new one takes its name and restrictions, the old one ends with the grace or its own earlier expiry", () => {
    const roll = { type: "RollApiKey" as const, keyId: "k1", newKeyId: "k2", secretHash: "h2", graceMs: 4000, now };
    const rolled = (oldKeyExpiresAt: string, restrictions: KeyRestrictions): AccountEvent => ({
      type: "ApiKeyRolled",
      data: { accountId: "acc_1", keyId: "k1", newKeyId: "k2", name: "ci", secretHash: "h2", restrictions, oldKeyExpiresAt, at },
    });
    spec
      .given([opened, issued("k1", restricted)])
      .when(roll)
      .then([rolled(later(4000).toISOString(), restricted)]);
    const expiresFirst = { ...restricted, expiresAt: later(2000).toISOString() };
    spec
      .given([opened, issued("k1", expiresFirst)])
      .when(roll)
      .then([rolled(later(2000).toISOString(), expiresFirst)]);
    // A roll replaces a key: it is not held to the cap.
    spec
      .given([opened, issued("k1")])
      .when({ ...roll, now })
      .then([rolled(later(4000).toISOString(), UNRESTRICTED)]);
    spec.given([opened]).when(roll).thenRejects("KEY_NOT_FOUND");
    spec
      .given([opened, issued("k1"), issued("k2")])
      .when(roll)
      .thenRejects("KEY_EXISTS");
    spec
      .given([opened, issued("k1")])
      .when({ ...roll, graceMs: -1 })
      .thenRejects("INVALID_GRACE");
    const state = spec.given([opened, issued("k1", restricted), rolled(later(4000).toISOString(), restricted)]).state();
    if (state.status !== "open") throw new Error("not open");
    expect(state.keys.get("k1")?.restrictions.expiresAt).toBe(later(4000).toISOString());
    expect(state.keys.get("k2")).toMatchObject({ name: "ci", secretHash: "h2", restrictions: restricted, createdAt: at });
    expect(activeKeys(state, later(3999)).map((key) => key.keyId)).toEqual(["k1", "k2"]);
    expect(activeKeys(state, later(4000)).map((key) => key.keyId)).toEqual(["k2"]);
  });
});
