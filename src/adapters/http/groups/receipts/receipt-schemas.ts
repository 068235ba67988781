import { Schema, SchemaTransformation } from "effect";
import { FEATURES } from "../../../../domain/plan.ts";
import { RECEIPT_KINDS } from "../../../../domain/receipts/receipt.ts";

/** The receipts log's bodies in the API (docs/audit-and-receipts.md, Receipts): what customers keep and check. */
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const Base64Hash = Schema.String.annotate({ identifier: "MerkleHash", description: "a SHA-256 hash of the receipts log's Merkle tree, base64" });
const Hashes = Schema.Array(Base64Hash);

/** Query values (strings as sent), decoded to what the use cases take. */
export const TreeSize = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })).annotate({
  identifier: "TreeSize",
  description: "a size of the receipts log's tree, a whole number from 1",
});
export const TreeSizes = Schema.String.check(Schema.isPattern(/^\d{1,15}(?:,\d{1,15}){0,15}$/u))
  .pipe(
    Schema.decodeTo(
      Schema.Array(Schema.Number),
      SchemaTransformation.transform<ReadonlyArray<number>, string>({ decode: (text) => text.split(",").map(Number), encode: (sizes) => sizes.join(",") }),
    ),
  )
  .annotate({ identifier: "TreeSizes", description: "tree sizes of checkpoints saved earlier, joined by commas (16 at most)" });
export const BillingPeriod = Schema.String.check(Schema.isPattern(/^\d{4}-(?:0[1-9]|1[0-2])$/u)).annotate({
  identifier: "BillingPeriod",
  description: "a month, YYYY-MM (UTC)",
});

export const ReceiptBody = Schema.Struct({
  v: Schema.Literal(1),
  logOrigin: Schema.String.annotate({ description: "the log this receipt belongs to: the origin line of its checkpoints" }),
  kind: Schema.Literals(RECEIPT_KINDS).annotate({
    description: "charge: units counted by a success; release: a reservation given back uncharged; refund: charged units given back",
  }),
  account: Schema.String,
  requestId: Schema.String,
  operation: Schema.Literals(FEATURES),
  units: Count,
  period: Schema.String.annotate({ description: "the billing period, YYYY-MM (UTC)" }),
  at: Schema.String.annotate({ format: "date-time" }),
  leafIndex: Count.annotate({ description: "the receipt's leaf in the log, numbered from 0 in the event store's order" }),
}).annotate({ identifier: "ReceiptBody" });

export const Receipt = Schema.Struct({
  body: ReceiptBody,
  keyId: Schema.String.annotate({ description: "the signed-note key id of the log key (GET /ledger/key), hex" }),
  signature: Schema.String.annotate({ description: "Ed25519 over the body's canonical JSON (RFC 8785), the raw 64 bytes in base64" }),
}).annotate({ identifier: "Receipt" });

/** On a charged response: null only if the log could not be read within a second (GET /receipts/{requestId} has it later). */
export const ChargeReceipt = Schema.NullOr(Receipt).annotate({
  description: "the signed receipt of this charge; null only when the log could not be read in time: GET /receipts/{requestId} gives it",
});

export const ReceiptsData = Schema.Struct({ receipts: Schema.Array(Receipt) });

export const InclusionProofData = Schema.Struct({ leafIndex: Count, treeSize: Count, hashes: Hashes });

export const ConsistencyProofData = Schema.Struct({ from: Count, to: Count, hashes: Hashes });

export const StatementData = Schema.Struct({
  period: Schema.String,
  checkpoint: Schema.String.annotate({ description: "the signed checkpoint (C2SP signed note) every proof here is against" }),
  receipts: Schema.Array(Schema.Struct({ receipt: Receipt, proof: Hashes }).annotate({ identifier: "ProvedReceipt" })),
  totals: Schema.Struct({
    units: Schema.Int.annotate({ description: "units charged net of refunds: the profile's quota.used for the period" }),
    charges: Count,
    releases: Count,
    refunds: Count,
  }).annotate({ identifier: "StatementTotals" }),
  consistency: Schema.Array(Schema.Struct({ from: Count, hashes: Hashes }).annotate({ identifier: "ConsistencyFrom" })).annotate({
    description: "a consistency proof from each tree size asked for with from=, to the checkpoint's size",
  }),
});
