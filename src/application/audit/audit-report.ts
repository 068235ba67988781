import { Schema } from "effect";
import { Actor } from "../access/actor.ts";

/**
 * The audit report of one account, written once: what `itsctl audit --json` prints and what
 * GET /api/audit/accounts/:id answers (its `data`). The types the audit builds are read from it.
 */
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const NullableText = Schema.NullOr(Schema.String);
const DateTime = Schema.String.annotate({ format: "date-time" });
// Units are transformations (a document's pages each count one); refusals are counted both ways.
const Units = (what: string) => Count.annotate({ description: `units ${what}` });
const Counts = {
  reserved: Units("reserved"),
  committed: Units("committed: what the account is charged"),
  released: Units("released uncharged"),
  refusedRequests: Count.annotate({ description: "requests refused for want of quota (one per QuotaReservationRefused)" }),
  refusedUnits: Units("those refused requests asked for"),
};
const Recorded = Schema.NullOr(Schema.Union([Schema.String, Schema.Finite]));

export const AuditEntry = Schema.Struct({
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
});
export type AuditEntry = typeof AuditEntry.Type;

export const AuditKey = Schema.Struct({ keyId: Schema.String, name: Schema.String, createdAt: Schema.String, revokedAt: NullableText });
export type AuditKey = typeof AuditKey.Type;

export const AuditDifference = Schema.Struct({
  source: Schema.Literals(["usage projection", "key projection", "quota ledger", "account"]),
  subject: Schema.String,
  field: Schema.String,
  replayed: Recorded,
  recorded: Recorded,
});
export type AuditDifference = typeof AuditDifference.Type;

export const AuditReportData = Schema.Struct({
  accountId: Schema.String,
  generatedAt: DateTime,
  range: Schema.Struct({ from: NullableText, to: NullableText }),
  /** The billing periods whose ledgers were replayed and checked in full. */
  periods: Schema.Array(Schema.String.annotate({ description: "YYYY-MM" })),
  account: Schema.Struct({ email: Schema.String, name: Schema.String, plan: Schema.String, openedAt: Schema.String }),
  /** Every account, console-access (holder-<account>), template, quota, job and webhook-endpoint event in the range, in store order. */
  history: Schema.Array(AuditEntry),
  totals: Schema.Struct({
    ...Counts,
    lines: Schema.Array(Schema.Struct({ period: Schema.String, operation: Schema.String, keyId: Schema.String, ...Counts })),
  }).annotate({
    description: "units reserved, committed and released, refused requests and the units they asked for, in all and per period, operation and key",
  }),
  jobs: Schema.Struct({
    accepted: Count,
    succeeded: Count,
    failed: Count,
    unitsCharged: Count.annotate({ description: "the units of the jobs that succeeded in the range: each charged once, when it succeeded" }),
    unitsReleased: Count.annotate({ description: "the units of the jobs that failed in the range, given back" }),
  }).annotate({ description: "asynchronous jobs (Prefer: respond-async) replayed from their streams: accepted, succeeded and failed in the range" }),
  keys: Schema.Array(AuditKey),
  verification: Schema.Struct({
    /** The newest event of this account in the store. */
    storePosition: Count,
    usageProjectionPosition: Count,
    keyProjectionPosition: Count,
    /** How many values were compared. */
    compared: Count,
    differences: Schema.Array(AuditDifference),
    notes: Schema.Array(Schema.String),
  }),
  ok: Schema.Boolean.annotate({ description: "false when anything differs; verification.differences names each difference" }),
});
export type AuditReport = typeof AuditReportData.Type;
