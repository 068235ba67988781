import { Schema } from "effect";
import { FEATURES } from "../../../domain/plan.ts";
import { type QuotaCommand, type QuotaEvent, quotaLedgerDecider, type QuotaState } from "../../../domain/quota-ledger.ts";
import type { StreamType } from "../command-handler.ts";
import { makeEventCodec } from "./event-codec.ts";

const Attribution = { requestId: Schema.String, keyId: Schema.String, operation: Schema.Literals(FEATURES) };

/** The events of a `quota-<account>-<period>` ledger, as stored (current versions). */
export const QuotaEventSchema: Schema.Codec<QuotaEvent, QuotaEvent> = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("QuotaReserved"),
    data: Schema.Struct({
      ...Attribution,
      accountId: Schema.String,
      period: Schema.String,
      units: Schema.Number,
      limit: Schema.NullOr(Schema.Number),
      expiresAt: Schema.String,
      at: Schema.String,
    }),
  }),
  Schema.Struct({
    type: Schema.Literal("QuotaReservationRefused"),
    data: Schema.Struct({
      ...Attribution,
      accountId: Schema.String,
      period: Schema.String,
      units: Schema.Number,
      limit: Schema.Number,
      used: Schema.Number,
      reserved: Schema.NullOr(Schema.Number),
      at: Schema.String,
    }),
  }),
  Schema.Struct({ type: Schema.Literal("QuotaCommitted"), data: Schema.Struct({ requestId: Schema.String, at: Schema.String }) }),
  Schema.Struct({ type: Schema.Literal("QuotaReleased"), data: Schema.Struct({ requestId: Schema.String, reason: Schema.String, at: Schema.String }) }),
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
