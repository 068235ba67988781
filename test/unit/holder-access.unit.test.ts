import { describe, expect, it } from "vitest";
import { holderAccessDecider, type HolderAccessEvent, liveInvitation, liveSession, MAX_SESSIONS } from "../../src/domain/holder-access.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const spec = deciderSpec(holderAccessDecider);
const now = new Date("2026-11-23T10:00:00.000Z");
const at = now.toISOString();
const hours = (n: number) => new Date(now.getTime() + n * 3600_000);
const accountId = "acc_1";

const invited = (invitationId = "i1", when = now): HolderAccessEvent => ({
  type: "InvitationIssued",
  data: {
    accountId,
    invitationId,
    email: "a@example.com",
    tokenHash: `hash-${invitationId}`,
    expiresAt: new Date(when.getTime() + 24 * 3600_000).toISOString(),
    at: when.toISOString(),
  },
});
const used = (invitationId = "i1"): HolderAccessEvent => ({ type: "InvitationUsed", data: { accountId, invitationId, at } });
const revoked = (invitationId: string, reason: "password-set" | "operator"): HolderAccessEvent => ({
  type: "InvitationRevoked",
  data: { accountId, invitationId, reason, at },
});
const passwordSet: HolderAccessEvent = { type: "PasswordSet", data: { accountId, passwordHash: "$argon2id$x", at } };
const started = (sessionId: string, when = now): HolderAccessEvent => ({
  type: "ConsoleSessionStarted",
  data: { accountId, sessionId, secretHash: `hash-${sessionId}`, expiresAt: new Date(when.getTime() + 12 * 3600_000).toISOString(), at: when.toISOString() },
});
const ended = (sessionId: string, reason: "signed-out" | "password-set" | "superseded"): HolderAccessEvent => ({
  type: "ConsoleSessionEnded",
  data: { accountId, sessionId, reason, at },
});

describe("holder access", () => {
  it("issues invitations valid for 24 hours, recording only the token's hash", () => {
    spec.given([]).when({ type: "IssueInvitation", accountId, email: "a@example.com", invitationId: "i1", tokenHash: "hash-i1", now }).then([invited()]);
    spec
      .given([invited()])
      .when({ type: "IssueInvitation", accountId, email: "a@example.com", invitationId: "i1", tokenHash: "hash-i1", now })
      .thenRejects("INVITATION_EXISTS");
  });

  it("uses an invitation once, before it expires, to set the password and end every session", () => {
    const use = (when: Date) => ({ type: "UseInvitation" as const, invitationId: "i1", passwordHash: "$argon2id$x", now: when });
    spec.given([invited()]).when(use(now)).then([used(), passwordSet]);
    spec.given([invited(), used(), passwordSet]).when(use(now)).thenRejects("INVITATION_INVALID");
    spec
      .given([invited()])
      .when(use(hours(24)))
      .thenRejects("INVITATION_INVALID");
    spec.given([]).when(use(now)).thenRejects("NO_CONSOLE_ACCESS");
    // A reset (a new invitation) signs out whoever held the old password.
    spec
      .given([invited(), used(), passwordSet, started("s1"), invited("i2")])
      .when({ ...use(now), invitationId: "i2" })
      .then([used("i2"), ended("s1", "password-set"), passwordSet]);
  });

  it("revokes every other outstanding invitation when one sets the password", () => {
    const use = { type: "UseInvitation" as const, invitationId: "i2", passwordHash: "$argon2id$x", now };
    spec
      .given([invited("i1"), invited("i2"), invited("i3"), started("s0")])
      .when(use)
      .then([used("i2"), revoked("i1", "password-set"), revoked("i3", "password-set"), ended("s0", "password-set"), passwordSet]);
    // Expired ones need no revoking; revoked ones are no longer live.
    spec
      .given([invited("old", hours(-25)), invited("i2")])
      .when(use)
      .then([used("i2"), passwordSet]);
    const afterwards = spec.given([invited("i1"), invited("i2"), used("i2"), revoked("i1", "password-set"), passwordSet]);
    expect(liveInvitation(afterwards.state(), "i1", now)).toBeUndefined();
    spec
      .given([invited("i1"), invited("i2"), used("i2"), revoked("i1", "password-set"), passwordSet])
      .when({ ...use, invitationId: "i1" })
      .thenRejects("INVITATION_INVALID");
  });

  it("revokes every outstanding invitation at the operator's word, and nothing when none is outstanding", () => {
    const revoke = { type: "RevokeInvitations" as const, now };
    spec
      .given([invited("i1"), invited("i2"), used("i2"), passwordSet, invited("i3")])
      .when(revoke)
      .then([revoked("i1", "operator"), revoked("i3", "operator")]);
    spec
      .given([invited("i1"), revoked("i1", "operator")])
      .when(revoke)
      .then([]);
    spec.given([]).when(revoke).then([]);
    spec
      .given([invited("i1", hours(-25))])
      .when(revoke)
      .then([]);
    spec
      .given([invited("i1"), revoked("i1", "operator")])
      .when({ type: "UseInvitation", invitationId: "i1", passwordHash: "$argon2id$x", now })
      .thenRejects("INVITATION_INVALID");
  });

  it("starts sessions only once a password is set, keeping at most MAX_SESSIONS", () => {
    const start = (sessionId: string, when = now) => ({ type: "StartSession" as const, sessionId, secretHash: `hash-${sessionId}`, now: when });
    spec.given([invited()]).when(start("s1")).thenRejects("NO_PASSWORD");
    const base = [invited(), used(), passwordSet];
    spec
      .given(base)
      .when(start("s1"))
      .then([started("s1")]);
    const full = [...base, ...Array.from({ length: MAX_SESSIONS }, (_, i) => started(`s${i}`))];
    spec
      .given(full)
      .when(start("new"))
      .then([ended("s0", "superseded"), started("new")]);
    // Expired sessions are dropped from the state instead of being ended.
    spec
      .given([...base, started("old", hours(-13))])
      .when(start("s1"))
      .then([started("s1")]);
  });

  it("ends a session once; an ended or expired session is not live", () => {
    const base = [invited(), used(), passwordSet, started("s1")];
    spec
      .given(base)
      .when({ type: "EndSession", sessionId: "s1", now })
      .then([ended("s1", "signed-out")]);
    spec
      .given([...base, ended("s1", "signed-out")])
      .when({ type: "EndSession", sessionId: "s1", now })
      .then([]);
    expect(liveSession(spec.given(base).state(), "s1", hours(11))).toBeDefined();
    expect(liveSession(spec.given(base).state(), "s1", hours(12))).toBeUndefined();
    expect(liveSession(spec.given([...base, ended("s1", "signed-out")]).state(), "s1", now)).toBeUndefined();
  });
});
