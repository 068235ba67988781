import { Schema } from "effect";
import { Actor } from "../../application/actor.ts";

/** The `data` of GET /audit/accounts/:id: the report `itsctl audit --json` prints (application/audit.ts). */
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const NullableText = Schema.NullOr(Schema.String);
const DateTime = Schema.String.annotate({ format: "date-time" });
const Counts = { reserved: Count, committed: Count, released: Count, refused: Count };
const Recorded = Schema.NullOr(Schema.Union([Schema.String, Schema.Finite]));

export const AuditReportData = Schema.Struct({
  accountId: Schema.String,
  generatedAt: DateTime,
  range: Schema.Struct({ from: NullableText, to: NullableText }),
  periods: Schema.Array(Schema.String.annotate({ description: "YYYY-MM" })),
  account: Schema.Struct({ email: Schema.String, name: Schema.String, plan: Schema.String, openedAt: Schema.String }),
  history: Schema.Array(
    Schema.Struct({
      position: Count,
      at: DateTime,
      type: Schema.String.annotate({ description: "the event type, e.g. QuotaCommitted, ApiKeyRevoked" }),
      what: Schema.String,
      keyId: NullableText,
      requestId: NullableText,
      operation: NullableText,
      period: NullableText,
      actor: Schema.NullOr(Actor).annotate({
        description: "who acted: an API key, the operator (itsctl), the holder's console session or the service; null before actors were recorded",
      }),
    }),
  ),
  totals: Schema.Struct({
    ...Counts,
    lines: Schema.Array(Schema.Struct({ period: Schema.String, operation: Schema.String, keyId: Schema.String, ...Counts })),
  }).annotate({ description: "reserved, committed (transformations), released and refused, in all and per period, operation and key" }),
  keys: Schema.Array(Schema.Struct({ keyId: Schema.String, name: Schema.String, createdAt: Schema.String, revokedAt: NullableText })),
  verification: Schema.Struct({
    storePosition: Count,
    usageProjectionPosition: Count,
    keyProjectionPosition: Count,
    compared: Count,
    differences: Schema.Array(
      Schema.Struct({
        source: Schema.Literals(["usage projection", "key projection", "quota ledger", "account"]),
        subject: Schema.String,
        field: Schema.String,
        replayed: Recorded,
        recorded: Recorded,
      }),
    ),
    notes: Schema.Array(Schema.String),
  }),
  ok: Schema.Boolean.annotate({ description: "false when anything differs; verification.differences names each difference" }),
});
