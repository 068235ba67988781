import { accept, type Decider, type Decision, reject } from "./decider.ts";

/**
 * How an account holder gets into the console: the operator's one-use invitations, the password
 * the holder sets with one, and the sessions a sign-in starts. Only hashes are recorded (of the
 * invitation token, the password, the session secret), never a secret.
 * Stream: `holder-<accountId>`.
 */
export const holderStream = (accountId: string): string => `holder-${accountId}`;

export const INVITATION_LIFETIME_MS = 24 * 60 * 60_000;
export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;
/** Older sessions are ended when a sign-in would exceed this, so the stream's state stays small. */
export const MAX_SESSIONS = 10;

export type HolderAccessEvent =
  | {
      readonly type: "InvitationIssued";
      readonly data: { accountId: string; invitationId: string; email: string; tokenHash: string; expiresAt: string; at: string };
    }
  | { readonly type: "InvitationUsed"; readonly data: { accountId: string; invitationId: string; at: string } }
  | { readonly type: "InvitationRevoked"; readonly data: { accountId: string; invitationId: string; reason: InvitationRevokeReason; at: string } }
  | { readonly type: "PasswordSet"; readonly data: { accountId: string; passwordHash: string; at: string } }
  | {
      readonly type: "ConsoleSessionStarted";
      readonly data: { accountId: string; sessionId: string; secretHash: string; expiresAt: string; at: string };
    }
  | { readonly type: "ConsoleSessionEnded"; readonly data: { accountId: string; sessionId: string; reason: SessionEndReason; at: string } };

export type SessionEndReason = "signed-out" | "password-set" | "superseded";
/** "password-set": another invitation set the password; "operator": `itsctl account invite --revoke`. */
export type InvitationRevokeReason = "password-set" | "operator";

export type HolderAccessCommand =
  | {
      readonly type: "IssueInvitation";
      readonly accountId: string;
      readonly email: string;
      readonly invitationId: string;
      readonly tokenHash: string;
      readonly now: Date;
    }
  /** The application has checked the presented token against `tokenHash` (constant time) before. */
  | { readonly type: "UseInvitation"; readonly invitationId: string; readonly passwordHash: string; readonly now: Date }
  /** Every outstanding invitation, at the operator's word. */
  | { readonly type: "RevokeInvitations"; readonly now: Date }
  | { readonly type: "StartSession"; readonly sessionId: string; readonly secretHash: string; readonly now: Date }
  | { readonly type: "EndSession"; readonly sessionId: string; readonly now: Date };

export interface PendingInvitation {
  readonly invitationId: string;
  readonly tokenHash: string;
  readonly expiresAt: string;
}

export interface ConsoleSession {
  readonly sessionId: string;
  readonly secretHash: string;
  readonly startedAt: string;
  readonly expiresAt: string;
}

export interface HolderAccessState {
  readonly accountId: string | null;
  readonly passwordHash: string | null;
  /** Unused, unexpired as of the last event. */
  readonly invitations: ReadonlyMap<string, PendingInvitation>;
  /** Started, not ended, unexpired as of the last event; the oldest first. */
  readonly sessions: ReadonlyMap<string, ConsoleSession>;
}

const isLive = (expiresAt: string, now: Date | string): boolean => new Date(expiresAt).getTime() > new Date(now).getTime();

export const liveInvitation = (state: HolderAccessState, invitationId: string, now: Date): PendingInvitation | undefined => {
  const invitation = state.invitations.get(invitationId);
  return invitation !== undefined && isLive(invitation.expiresAt, now) ? invitation : undefined;
};

export const liveSession = (state: HolderAccessState, sessionId: string, now: Date): ConsoleSession | undefined => {
  const session = state.sessions.get(sessionId);
  return session !== undefined && isLive(session.expiresAt, now) ? session : undefined;
};

/** The live invitations other than `except`, each revoked for `reason`. */
const revokeOutstanding = (
  state: HolderAccessState,
  accountId: string,
  reason: InvitationRevokeReason,
  now: Date,
  except?: string,
): ReadonlyArray<HolderAccessEvent> =>
  [...state.invitations.keys()]
    .filter((invitationId) => invitationId !== except && liveInvitation(state, invitationId, now) !== undefined)
    .map((invitationId) => ({ type: "InvitationRevoked", data: { accountId, invitationId, reason, at: now.toISOString() } }));

const decide = (command: HolderAccessCommand, state: HolderAccessState): Decision<HolderAccessEvent> => {
  const at = command.now.toISOString();
  if (command.type === "IssueInvitation") {
    if (state.invitations.has(command.invitationId)) return reject("INVITATION_EXISTS", `invitation ${command.invitationId} already exists`);
    const { accountId, email, invitationId, tokenHash } = command;
    const expiresAt = new Date(command.now.getTime() + INVITATION_LIFETIME_MS).toISOString();
    return accept({ type: "InvitationIssued", data: { accountId, invitationId, email, tokenHash, expiresAt, at } });
  }
  const accountId = state.accountId;
  // Never invited: nothing outstanding to revoke.
  if (command.type === "RevokeInvitations") return accept(...(accountId === null ? [] : revokeOutstanding(state, accountId, "operator", command.now)));
  if (accountId === null) return reject("NO_CONSOLE_ACCESS", "this account was never invited to the console");
  switch (command.type) {
    case "UseInvitation": {
      if (liveInvitation(state, command.invitationId, command.now) === undefined) {
        return reject("INVITATION_INVALID", "this invitation link was used already or has expired");
      }
      // A new password ends every session and every other invitation: whoever held the old password,
      // or an older link, is out.
      const ended = [...state.sessions.keys()].map((sessionId): HolderAccessEvent => ({
        type: "ConsoleSessionEnded",
        data: { accountId, sessionId, reason: "password-set", at },
      }));
      return accept(
        { type: "InvitationUsed", data: { accountId, invitationId: command.invitationId, at } },
        ...revokeOutstanding(state, accountId, "password-set", command.now, command.invitationId),
        ...ended,
        { type: "PasswordSet", data: { accountId, passwordHash: command.passwordHash, at } },
      );
    }
    case "StartSession": {
      if (state.passwordHash === null) return reject("NO_PASSWORD", "no password was set for this account");
      if (state.sessions.has(command.sessionId)) return reject("SESSION_EXISTS", `session ${command.sessionId} already exists`);
      const live = [...state.sessions.values()].filter((session) => isLive(session.expiresAt, command.now));
      const superseded = live.slice(0, Math.max(0, live.length - (MAX_SESSIONS - 1)));
      const expiresAt = new Date(command.now.getTime() + SESSION_LIFETIME_MS).toISOString();
      return accept(
        ...superseded.map(({ sessionId }): HolderAccessEvent => ({ type: "ConsoleSessionEnded", data: { accountId, sessionId, reason: "superseded", at } })),
        { type: "ConsoleSessionStarted", data: { accountId, sessionId: command.sessionId, secretHash: command.secretHash, expiresAt, at } },
      );
    }
    case "EndSession":
      return state.sessions.has(command.sessionId)
        ? accept({ type: "ConsoleSessionEnded", data: { accountId, sessionId: command.sessionId, reason: "signed-out", at } })
        : accept();
  }
};

/** Drops what had expired by `at`, so the state holds only what can still be used. */
const withoutExpired = <T extends { readonly expiresAt: string }>(entries: ReadonlyMap<string, T>, at: string): Map<string, T> =>
  new Map([...entries].filter(([, entry]) => isLive(entry.expiresAt, at)));

const evolve = (state: HolderAccessState, event: HolderAccessEvent): HolderAccessState => {
  switch (event.type) {
    case "InvitationIssued": {
      const { invitationId, tokenHash, expiresAt, at } = event.data;
      const invitations = withoutExpired(state.invitations, at).set(invitationId, { invitationId, tokenHash, expiresAt });
      return { ...state, accountId: event.data.accountId, invitations };
    }
    case "InvitationUsed":
    case "InvitationRevoked": {
      const invitations = withoutExpired(state.invitations, event.data.at);
      invitations.delete(event.data.invitationId);
      return { ...state, invitations };
    }
    case "PasswordSet":
      return { ...state, passwordHash: event.data.passwordHash };
    case "ConsoleSessionStarted": {
      const { sessionId, secretHash, expiresAt, at } = event.data;
      const sessions = withoutExpired(state.sessions, at).set(sessionId, { sessionId, secretHash, startedAt: at, expiresAt });
      return { ...state, sessions };
    }
    case "ConsoleSessionEnded": {
      const sessions = new Map(state.sessions);
      sessions.delete(event.data.sessionId);
      return { ...state, sessions };
    }
  }
};

export const holderAccessDecider: Decider<HolderAccessCommand, HolderAccessEvent, HolderAccessState> = {
  decide,
  evolve,
  initialState: () => ({ accountId: null, passwordHash: null, invitations: new Map(), sessions: new Map() }),
};
