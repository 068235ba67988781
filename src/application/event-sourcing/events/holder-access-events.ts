import { Schema } from "effect";
import { type HolderAccessCommand, holderAccessDecider, type HolderAccessEvent, type HolderAccessState } from "../../../domain/holder-access.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";

/** The events of a `holder-<account>` stream (console invitations, password, sessions), as stored. */
export const HolderAccessEventSchema: Schema.Codec<HolderAccessEvent, HolderAccessEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("InvitationIssued"),
    data: Schema.Struct({
      accountId: Schema.String,
      invitationId: Schema.String,
      email: Schema.String,
      tokenHash: Schema.String,
      expiresAt: Schema.String,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("InvitationUsed"),
    data: Schema.Struct({ accountId: Schema.String, invitationId: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("InvitationRevoked"),
    data: Schema.Struct({ accountId: Schema.String, invitationId: Schema.String, reason: Schema.Literals(["password-set", "operator"]), at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("PasswordSet"),
    data: Schema.Struct({ accountId: Schema.String, passwordHash: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("ConsoleSessionStarted"),
    data: Schema.Struct({ accountId: Schema.String, sessionId: Schema.String, secretHash: Schema.String, expiresAt: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("ConsoleSessionEnded"),
    data: Schema.Struct({
      accountId: Schema.String,
      sessionId: Schema.String,
      reason: Schema.Literals(["signed-out", "password-set", "superseded"]),
      at: Schema.String,
    }),
  }),
]);

export const holderAccessEventCodec = makeEventCodec(HolderAccessEventSchema);

export const holderAccessStreamType: StreamType<HolderAccessCommand, HolderAccessEvent, HolderAccessState> = {
  decider: holderAccessDecider,
  codec: holderAccessEventCodec,
};
