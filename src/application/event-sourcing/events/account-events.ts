import { Schema } from "effect";
import { type AccountCommand, accountDecider, type AccountEvent, type AccountState } from "../../../domain/account.ts";
import { KEY_SCOPES } from "../../../domain/key-restrictions.ts";
import { PLAN_IDS } from "../../../domain/plan.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";
import { AccountId, At, described, KeyId } from "./event-fields.ts";

const Plan = Schema.Literals(PLAN_IDS);
const Restrictions = described(
  Schema.Struct({
    scopes: described(Schema.NullOr(Schema.Array(Schema.Literals(KEY_SCOPES))), "operations the key may call; null: all"),
    expiresAt: described(Schema.NullOr(Schema.String), "ISO 8601 UTC after which the key is refused (401); null: never"),
    allowedIps: described(Schema.NullOr(Schema.Array(Schema.String)), "addresses or CIDR ranges the key may be used from; null: anywhere"),
    monthlyLimit: described(Schema.NullOr(Schema.Number), "units the key may commit a billing period, under the account's; null: only the account's"),
  }),
  "the key's restrictions (version 1 had none: the upcast sets every one to null)",
);
const SecretHash = described(Schema.String, "the key's secret, hashed with a key from SERVER_SECRET (never the secret itself)");
const KeyName = described(Schema.String, "the name the holder gave the key");

/** The events of an `account-<id>` stream, as stored. */
export const AccountEventSchema: Schema.Codec<AccountEvent, AccountEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("AccountOpened"),
    data: Schema.Struct({
      accountId: AccountId,
      email: described(Schema.String, "the holder's email address"),
      name: described(Schema.String, "the account's display name"),
      plan: described(Plan, "the plan the account opens on"),
      at: At,
    }),
  }).annotate({ description: "An account is opened (`itsctl account open`).", writtenBy: "OpenAccount" }),
  Schema.Struct({
    type: Schema.Literal("AccountPlanChanged"),
    data: Schema.Struct({
      accountId: AccountId,
      from: described(Plan, "the plan before"),
      to: described(Plan, "the plan from `at` on: its limit applies to reservations made after"),
      at: At,
    }),
  }).annotate({
    description: "The account moves to another plan (`itsctl account set-plan`); a change to the same plan writes nothing.",
    writtenBy: "ChangePlan",
  }),
  Schema.Struct({
    type: Schema.Literal("ApiKeyIssued"),
    data: Schema.Struct({ accountId: AccountId, keyId: KeyId, name: KeyName, secretHash: SecretHash, restrictions: Restrictions, at: At }),
  }).annotate({ description: "A key is made (`itsctl key create` or the console).", writtenBy: "IssueApiKey" }),
  Schema.Struct({
    type: Schema.Literal("ApiKeyRevoked"),
    data: Schema.Struct({ accountId: AccountId, keyId: described(KeyId, "the key refused from `at` on"), at: At }),
  }).annotate({ description: "A key is deleted (`itsctl key delete` or the console).", writtenBy: "RevokeApiKey" }),
  Schema.Struct({
    type: Schema.Literal("ApiKeyRolled"),
    data: Schema.Struct({
      accountId: AccountId,
      keyId: described(KeyId, "the key replaced"),
      newKeyId: described(KeyId, "the key that replaces it"),
      name: described(KeyName, "the new key's name"),
      secretHash: described(SecretHash, "the new key's secret, hashed"),
      restrictions: described(Restrictions, "the new key's restrictions: the old key's, copied"),
      oldKeyExpiresAt: described(Schema.String, "ISO 8601 UTC until which the old key still works"),
      at: At,
    }),
  }).annotate({
    description: "A key is rolled (`itsctl key roll` or the console): replaced by a new one; the old one keeps working until `oldKeyExpiresAt`.",
    writtenBy: "RollApiKey",
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
