import { Schema } from "effect";
import { type HolderAccessCommand, holderAccessDecider, type HolderAccessEvent, type HolderAccessState } from "../../../domain/holder-access.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";
import { AccountId, At, described } from "./event-fields.ts";

const InvitationId = described(Schema.String, "the invitation's id");
const SessionId = described(Schema.String, "the console session's id");

/** The events of a `holder-<account>` stream (console invitations, password, sessions), as stored. */
export const HolderAccessEventSchema: Schema.Codec<HolderAccessEvent, HolderAccessEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("InvitationIssued"),
    data: Schema.Struct({
      accountId: AccountId,
      invitationId: InvitationId,
      email: described(Schema.String, "where the invitation was sent"),
      tokenHash: described(Schema.String, "the invitation's token, hashed with a key from SERVER_SECRET (the token itself is only in the link)"),
      expiresAt: described(Schema.String, "ISO 8601 UTC after which the invitation is refused"),
      at: At,
    }),
  }).annotate({ description: "The holder is invited to set a console password (`itsctl account invite`).", writtenBy: "IssueInvitation" }),
  Schema.Struct({
    type: Schema.Literal("InvitationUsed"),
    data: Schema.Struct({ accountId: AccountId, invitationId: InvitationId, at: At }),
  }).annotate({ description: "An invitation is used to set the password.", writtenBy: "UseInvitation" }),
  Schema.Struct({
    type: Schema.Literal("InvitationRevoked"),
    data: Schema.Struct({
      accountId: AccountId,
      invitationId: InvitationId,
      reason: described(
        Schema.Literals(["password-set", "operator"]),
        "password-set: another invitation set the password; operator: `itsctl account invite --revoke`",
      ),
      at: At,
    }),
  }).annotate({ description: "An outstanding invitation is withdrawn.", writtenBy: "UseInvitation, RevokeInvitations" }),
  Schema.Struct({
    type: Schema.Literal("PasswordSet"),
    data: Schema.Struct({ accountId: AccountId, passwordHash: described(Schema.String, "the console password, hashed with Argon2id (PHC string)"), at: At }),
  }).annotate({ description: "The holder's console password is set.", writtenBy: "UseInvitation" }),
  Schema.Struct({
    type: Schema.Literal("ConsoleSessionStarted"),
    data: Schema.Struct({
      accountId: AccountId,
      sessionId: SessionId,
      secretHash: described(Schema.String, "the session cookie's secret, hashed with a key from SERVER_SECRET"),
      expiresAt: described(Schema.String, "ISO 8601 UTC after which the session is refused"),
      at: At,
    }),
  }).annotate({ description: "The holder signs in to the console.", writtenBy: "StartSession" }),
  Schema.Struct({
    type: Schema.Literal("ConsoleSessionEnded"),
    data: Schema.Struct({
      accountId: AccountId,
      sessionId: SessionId,
      reason: described(
        Schema.Literals(["signed-out", "password-set", "superseded"]),
        "signed-out; password-set: a new password ends every session; superseded: too many sessions, the oldest ends",
      ),
      at: At,
    }),
  }).annotate({ description: "A console session ends.", writtenBy: "EndSession, UseInvitation, StartSession" }),
]);

export const holderAccessEventCodec = makeEventCodec(HolderAccessEventSchema);

export const holderAccessStreamType: StreamType<HolderAccessCommand, HolderAccessEvent, HolderAccessState> = {
  decider: holderAccessDecider,
  codec: holderAccessEventCodec,
};
