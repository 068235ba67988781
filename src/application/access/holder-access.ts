import { Data, Effect } from "effect";
import { holderStream, liveInvitation, liveSession } from "../../domain/holder-access.ts";
import { Clock } from "../../ports/clock.ts";
import { Ids } from "../../ports/ids.ts";
import { PasswordHasher } from "../../ports/password-hasher.ts";
import { KeyProjection } from "../../ports/projections.ts";
import { RateLimiter } from "../../ports/rate-limiter.ts";
import { SecretHasher } from "../../ports/secret-hasher.ts";
import { handleCommand, loadState } from "../event-sourcing/command-handler.ts";
import { holderAccessStreamType } from "../event-sourcing/events/holder-access-events.ts";
import { getAccount } from "./accounts.ts";
import type { Actor } from "./actor.ts";

/**
 * The account console's way in: an operator's invitation, the password the holder sets with it,
 * sign-in, sessions and sign-out. Tokens are `<accountId>.<id>.<secret>`: the account finds the
 * stream, the id the record, and only a keyed hash of the secret was ever recorded.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
const EMAIL_MAX_LENGTH = 320;

/** Wrong passwords, per account (email) and per client address. */
export const SIGN_IN_FAILURES_PER_ACCOUNT = { burst: 5, perMinute: 5 } as const;
export const SIGN_IN_FAILURES_PER_ADDRESS = { burst: 20, perMinute: 20 } as const;

const TOKEN = /^(acc_[a-z0-9]{16})\.([a-z0-9]{16})\.([\w-]{43,128})$/;

interface ParsedToken {
  readonly accountId: string;
  readonly id: string;
  readonly secret: string;
}

const parseToken = (token: string): ParsedToken | undefined => {
  const match = TOKEN.exec(token);
  return match?.[1] && match[2] && match[3] ? { accountId: match[1], id: match[2], secret: match[3] } : undefined;
};

export class InvitationInvalid extends Data.TaggedError("InvitationInvalid")<{ readonly message: string }> {}
export class PasswordRejected extends Data.TaggedError("PasswordRejected")<{ readonly message: string }> {}
export class SignInFailed extends Data.TaggedError("SignInFailed")<{ readonly message: string }> {}
export class SignInThrottled extends Data.TaggedError("SignInThrottled")<{ readonly retryAfterSeconds: number }> {}
export class NoSession extends Data.TaggedError("NoSession")<Record<never, never>> {}

/** The holder in the console, for the events' metadata (the audit names it): the session's public id. */
export const consoleActor = (accountId: string, sessionId: string): Actor => ({ kind: "console", accountId, sessionId });

export interface Invitation {
  readonly accountId: string;
  readonly email: string;
  /** The path's last segment: `/console/invite/<token>`. Shown once, to the operator. */
  readonly token: string;
  readonly expiresAt: string;
}

/** What `itsctl account invite` does: a one-use, 24-hour invitation for the account's holder. */
export const issueInvitation = (accountId: string, actor: Actor) =>
  Effect.gen(function* () {
    const account = yield* getAccount(accountId);
    const ids = yield* Ids;
    const hasher = yield* SecretHasher;
    const invitationId = ids.keyId();
    const secret = ids.keySecret();
    const { events } = yield* handleCommand(
      holderAccessStreamType,
      holderStream(accountId),
      { type: "IssueInvitation", accountId, email: account.email, invitationId, tokenHash: hasher.hash(secret), now: (yield* Clock).now() },
      { actor },
    );
    const issued = events.find((event) => event.type === "InvitationIssued");
    return { accountId, email: account.email, token: `${accountId}.${invitationId}.${secret}`, expiresAt: issued?.data.expiresAt ?? "" } satisfies Invitation;
  });

/** What `itsctl account invite --revoke` does: every outstanding invitation of the account stops working. */
export const revokeInvitations = (accountId: string, actor: Actor) =>
  Effect.gen(function* () {
    const account = yield* getAccount(accountId);
    const { events } = yield* handleCommand(
      holderAccessStreamType,
      holderStream(accountId),
      { type: "RevokeInvitations", now: (yield* Clock).now() },
      { actor },
    );
    const revoked = events.flatMap((event) => (event.type === "InvitationRevoked" ? [event.data.invitationId] : []));
    return { accountId, email: account.email, revoked };
  });

const INVALID_INVITATION = new InvitationInvalid({
  message: "This invitation link is not valid: it was used already, was withdrawn, has expired, or was mistyped. Ask for a new one.",
});

/** The invitation a token names, if it is live and the secret matches; the email it was sent for. */
export const checkInvitation = (token: string) =>
  Effect.gen(function* () {
    const parsed = parseToken(token);
    if (parsed === undefined) return yield* INVALID_INVITATION;
    const { state } = yield* loadState(holderAccessStreamType, holderStream(parsed.accountId));
    const invitation = liveInvitation(state, parsed.id, (yield* Clock).now());
    if (invitation === undefined || !(yield* SecretHasher).verify(parsed.secret, invitation.tokenHash)) return yield* INVALID_INVITATION;
    const account = yield* getAccount(parsed.accountId);
    return { accountId: parsed.accountId, invitationId: parsed.id, email: account.email };
  });

export const checkPasswordChoice = (password: string, confirmation: string): PasswordRejected | undefined => {
  if (password !== confirmation) return new PasswordRejected({ message: "The two passwords differ." });
  if ([...password].length < PASSWORD_MIN_LENGTH) return new PasswordRejected({ message: `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.` });
  if (password.length > PASSWORD_MAX_LENGTH) return new PasswordRejected({ message: `Choose a password of at most ${PASSWORD_MAX_LENGTH} characters.` });
  return undefined;
};

export interface StartedSession {
  readonly accountId: string;
  /** The cookie's value; shown to nobody else. */
  readonly token: string;
  readonly expiresAt: string;
}

const startSession = (accountId: string) =>
  Effect.gen(function* () {
    const ids = yield* Ids;
    const sessionId = ids.keyId();
    const secret = ids.keySecret();
    const { events } = yield* handleCommand(
      holderAccessStreamType,
      holderStream(accountId),
      { type: "StartSession", sessionId, secretHash: (yield* SecretHasher).hash(secret), now: (yield* Clock).now() },
      { actor: consoleActor(accountId, sessionId) },
    );
    const started = events.find((event) => event.type === "ConsoleSessionStarted");
    return { accountId, token: `${accountId}.${sessionId}.${secret}`, expiresAt: started?.data.expiresAt ?? "" } satisfies StartedSession;
  });

/** Sets the password with a live invitation (using it up, ending every earlier session) and signs in. */
export const acceptInvitation = (token: string, password: string, confirmation: string) =>
  Effect.gen(function* () {
    const invitation = yield* checkInvitation(token);
    const rejected = checkPasswordChoice(password, confirmation);
    if (rejected !== undefined) return yield* rejected;
    const passwordHash = yield* (yield* PasswordHasher).hash(password);
    yield* handleCommand(
      holderAccessStreamType,
      holderStream(invitation.accountId),
      { type: "UseInvitation", invitationId: invitation.invitationId, passwordHash, now: (yield* Clock).now() },
      // No session yet: the invitation is what the holder acts with (its public id).
      { actor: consoleActor(invitation.accountId, `invitation:${invitation.invitationId}`) },
    ).pipe(Effect.catchTag("CommandRejected", () => Effect.fail(INVALID_INVITATION)));
    return yield* startSession(invitation.accountId);
  });

/** The address's bucket first: an address refused there costs the account's bucket nothing. */
const throttleKeys = (email: string, clientAddress: string) =>
  [
    { key: `console-sign-in:address:${clientAddress}`, policy: SIGN_IN_FAILURES_PER_ADDRESS },
    { key: `console-sign-in:email:${email.toLowerCase()}`, policy: SIGN_IN_FAILURES_PER_ACCOUNT },
  ] as const;

type ThrottleBucket = ReturnType<typeof throttleKeys>[number];

const giveBackAll = (buckets: ReadonlyArray<ThrottleBucket>) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter;
    for (const { key, policy } of buckets) yield* limiter.giveBack(key, policy);
  });

/**
 * One token from each bucket, taken before the password is checked: a take is atomic across
 * requests and instances, so concurrent attempts never check more passwords than the buckets hold.
 * Refused by one bucket, it hands back what it took from the others: nothing was checked.
 */
const takeSignInTokens = (buckets: ReadonlyArray<ThrottleBucket>) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter;
    for (const [index, { key, policy }] of buckets.entries()) {
      const decision = yield* limiter.take(key, policy);
      if (!decision.allowed) {
        yield* giveBackAll(buckets.slice(0, index));
        return yield* new SignInThrottled({ retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterSeconds)) });
      }
    }
  });

/** The account whose password this is, among those opened with the email; SignInFailed otherwise. */
const accountWithPassword = (email: string, password: string) =>
  Effect.gen(function* () {
    const failed = new SignInFailed({ message: "Wrong email or password." });
    if (email.length > EMAIL_MAX_LENGTH || password.length > PASSWORD_MAX_LENGTH || password.length === 0) return yield* failed;
    const hasher = yield* PasswordHasher;
    let checked = 0;
    for (const account of yield* (yield* KeyProjection).accountsWithEmail(email)) {
      const { state } = yield* loadState(holderAccessStreamType, holderStream(account.accountId));
      if (state.passwordHash === null) continue;
      checked++;
      if (yield* hasher.verify(password, state.passwordHash)) return account.accountId;
    }
    // An email with no password takes as long to refuse as a wrong password.
    if (checked === 0) yield* hasher.verify(password, null);
    return yield* failed;
  });

/**
 * Email and password to a session. Every password check costs a token from the account's bucket
 * and from the address's, taken before the check; while either is empty, no password is even
 * checked. A sign-in that succeeds hands its tokens back (the buckets count wrong passwords); a
 * wrong one never does. Emails are not unique across accounts: each account opened with it that
 * has a password is tried (at most ten).
 */
export const signIn = (email: string, password: string, clientAddress: string) =>
  Effect.gen(function* () {
    const buckets = throttleKeys(email.slice(0, EMAIL_MAX_LENGTH), clientAddress);
    yield* takeSignInTokens(buckets);
    const accountId = yield* accountWithPassword(email, password);
    yield* giveBackAll(buckets);
    return yield* startSession(accountId);
  });

export interface HolderSession {
  readonly accountId: string;
  readonly sessionId: string;
  /** The token state-changing forms carry: a keyed hash of the session's secret, useless without the cookie's key. */
  readonly csrfToken: string;
  readonly expiresAt: string;
}

const csrfInput = (parsed: ParsedToken) => `console-csrf.${parsed.accountId}.${parsed.id}.${parsed.secret}`;

/** The live session a cookie names; NoSession when it is missing, ended, expired or forged. */
export const resolveSession = (token: string | undefined) =>
  Effect.gen(function* () {
    const parsed = token === undefined ? undefined : parseToken(token);
    if (parsed === undefined) return yield* new NoSession();
    const { state } = yield* loadState(holderAccessStreamType, holderStream(parsed.accountId));
    const session = liveSession(state, parsed.id, (yield* Clock).now());
    const hasher = yield* SecretHasher;
    if (session === undefined || !hasher.verify(parsed.secret, session.secretHash)) return yield* new NoSession();
    return {
      accountId: parsed.accountId,
      sessionId: parsed.id,
      csrfToken: hasher.hash(csrfInput(parsed)),
      expiresAt: session.expiresAt,
    } satisfies HolderSession;
  });

/** The session, only if `presentedCsrf` is its token (checked in constant time). */
export const resolveSessionForChange = (token: string | undefined, presentedCsrf: string) =>
  Effect.gen(function* () {
    const session = yield* resolveSession(token);
    const parsed = parseToken(token ?? "");
    if (parsed === undefined || !(yield* SecretHasher).verify(csrfInput(parsed), presentedCsrf)) return yield* new NoSession();
    return session;
  });

export const signOut = (session: HolderSession) =>
  Effect.gen(function* () {
    yield* handleCommand(
      holderAccessStreamType,
      holderStream(session.accountId),
      { type: "EndSession", sessionId: session.sessionId, now: (yield* Clock).now() },
      { actor: consoleActor(session.accountId, session.sessionId) },
    );
  });
