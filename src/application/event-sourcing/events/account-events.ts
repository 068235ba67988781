import { Schema } from "effect";
import { type AccountCommand, accountDecider, type AccountEvent, type AccountState } from "../../../domain/account.ts";
import { KEY_SCOPES } from "../../../domain/key-restrictions.ts";
import { PLAN_IDS } from "../../../domain/plan.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";

const Plan = Schema.Literals(PLAN_IDS);
const Restrictions = Schema.Struct({
  scopes: Schema.NullOr(Schema.Array(Schema.Literals(KEY_SCOPES))),
  expiresAt: Schema.NullOr(Schema.String),
  allowedIps: Schema.NullOr(Schema.Array(Schema.String)),
  monthlyLimit: Schema.NullOr(Schema.Number),
});

/** The events of an `account-<id>` stream, as stored. */
export const AccountEventSchema: Schema.Codec<AccountEvent, AccountEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("AccountOpened"),
    data: Schema.Struct({ accountId: Schema.String, email: Schema.String, name: Schema.String, plan: Plan, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("AccountPlanChanged"),
    data: Schema.Struct({ accountId: Schema.String, from: Plan, to: Plan, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("ApiKeyIssued"),
    data: Schema.Struct({
      accountId: Schema.String,
      keyId: Schema.String,
      name: Schema.String,
      secretHash: Schema.String,
      restrictions: Restrictions,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("ApiKeyRevoked"),
    data: Schema.Struct({ accountId: Schema.String, keyId: Schema.String, at: Schema.String }),
  }),
  Schema.Struct({
    type: Schema.Literal("ApiKeyRolled"),
    data: Schema.Struct({
      accountId: Schema.String,
      keyId: Schema.String,
      newKeyId: Schema.String,
      name: Schema.String,
      secretHash: Schema.String,
      restrictions: Restrictions,
      oldKeyExpiresAt: Schema.String,
      at: Schema.String,
    }),
  }),
]);

export const accountEventCodec = makeEventCodec(AccountEventSchema, {
  versions: { ApiKeyIssued: 2 },
  upcasters: {
    // Keys issued before restrictions carried the whole account, from anywhere, for ever.
    ApiKeyIssued: { 1: (data) => ({ ...data, restrictions: { scopes: null, expiresAt: null, allowedIps: null, monthlyLimit: null } }) },
  },
});

export const accountStreamType: StreamType<AccountCommand, AccountEvent, AccountState> = { decider: accountDecider, codec: accountEventCodec };
