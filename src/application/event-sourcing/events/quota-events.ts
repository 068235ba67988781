import { Schema } from "effect";
import { FEATURES } from "../../../domain/plan.ts";
import { type QuotaCommand, type QuotaEvent, quotaLedgerDecider, type QuotaState } from "../../../domain/quota-ledger.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";
import { AccountId, At, described, KeyId, RequestId } from "./event-fields.ts";

const Attribution = {
  requestId: RequestId,
  keyId: described(KeyId, "the key the request was made with"),
  operation: described(Schema.Literals(FEATURES), "what the units pay for"),
};
const Period = described(Schema.String, "the billing period, `YYYY-MM` (UTC calendar month); also the stream name's suffix");
const Units = described(Schema.Number, "transformations asked for: 1, or a document's pages");

/** The events of a `quota-<account>-<period>` ledger, as stored (current versions). */
export const QuotaEventSchema: Schema.Codec<QuotaEvent, QuotaEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("QuotaReserved"),
    data: Schema.Struct({
      ...Attribution,
      accountId: AccountId,
      period: Period,
      units: described(Units, "units held until the reservation is committed, released or expires"),
      limit: described(Schema.NullOr(Schema.Number), "the plan's monthly limit when reserved; null: unlimited"),
      expiresAt: described(Schema.String, "ISO 8601 UTC: after it the units are no longer held (no event marks it)"),
      at: At,
    }),
  }).annotate({ description: "The units fit under the plan's limit and are held for the request.", writtenBy: "ReserveQuota" }),
  Schema.Struct({
    type: Schema.Literal("QuotaReservationRefused"),
    data: Schema.Struct({
      ...Attribution,
      accountId: AccountId,
      period: Period,
      units: described(Units, "units asked for and refused"),
      limit: described(Schema.Number, "the plan's monthly limit that refused them"),
      used: described(Schema.Number, "units committed in the period before this request"),
      reserved: described(Schema.NullOr(Schema.Number), "units held by unexpired reservations at the time; null: not recorded (version 1)"),
      at: At,
    }),
  }).annotate({
    description: "The units did not fit (`used + reserved + units > limit`): the request was answered 429 and nothing is held.",
    writtenBy: "ReserveQuota",
  }),
  Schema.Struct({
    type: Schema.Literal("QuotaCommitted"),
    data: Schema.Struct({ requestId: described(RequestId, "the reservation committed: its units, key and operation are the reservation's"), at: At }),
  }).annotate({ description: "The work succeeded: the reservation's units are spent.", writtenBy: "CommitQuota" }),
  Schema.Struct({
    type: Schema.Literal("QuotaReleased"),
    data: Schema.Struct({
      requestId: described(RequestId, "the reservation released: its units, key and operation are the reservation's"),
      reason: described(Schema.String, "why: the error code of the failed work, or why it did not run"),
      at: At,
    }),
  }).annotate({ description: "The work failed or did not run: the reservation's units are free again and not charged.", writtenBy: "ReleaseQuota" }),
]);

export const quotaEventCodec = makeEventCodec(QuotaEventSchema, {
  versions: { QuotaReserved: 2, QuotaReservationRefused: 3 },
  upcasters: {
    // Before documents every request held exactly one unit.
    QuotaReserved: { 1: (data) => ({ ...data, units: 1 }) },
    QuotaReservationRefused: {
      // Version 1 did not record the units held by open reservations; what they were is not known.
      1: (data) => ({ ...data, reserved: null }),
      2: (data) => ({ ...data, units: 1 }),
    },
  },
});

export const quotaLedgerStreamType: StreamType<QuotaCommand, QuotaEvent, QuotaState> = { decider: quotaLedgerDecider, codec: quotaEventCodec };
