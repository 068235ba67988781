import { Schema } from "effect";
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api";
import { ApiKey, KEYED } from "../../api/api-security.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";
import { BillingPeriod, ConsistencyProofData, InclusionProofData, ReceiptsData, StatementData, TreeSize, TreeSizes } from "./receipt-schemas.ts";

export const ReceiptsResponse = Success("ReceiptsReply", ReceiptsData);
export const InclusionProofResponse = Success("InclusionProofReply", InclusionProofData);
export const ConsistencyProofResponse = Success("ConsistencyProofReply", ConsistencyProofData);
export const StatementResponse = Success("StatementReply", StatementData);

const plainText = (identifier: string, description: string) =>
  Schema.String.annotate({ identifier, description }).pipe(HttpApiSchema.asText({ contentType: "text/plain" }));

/**
 * The receipts log (docs/audit-and-receipts.md, Receipts), part of the API's definition (api-definition.ts): the log's
 * own routes (ledger), open to anyone who checks it, and the account's receipts, proofs and statements.
 */
export const ledger = HttpApiGroup.make("ledger", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getLedgerCheckpoint", "/ledger/checkpoint", {
      success: plainText("LedgerCheckpoint", "a C2SP signed note: origin, tree size, base64 root hash, a blank line, the Ed25519 signature line"),
      error: errorResponses("Ledger", ["DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "The receipts log's newest checkpoint (no key needed)")
      .annotate(OpenApi.Description, "Save it: a later checkpoint must be consistent with it (GET /ledger/proof/consistency), or the log was rewritten."),
    HttpApiEndpoint.get("getLedgerKey", "/ledger/key", {
      success: plainText("LedgerVerifierKey", "the signed-note verifier key line: <name>+<key id>+<base64 of 0x01 and the Ed25519 public key>"),
      error: errorResponses("Ledger", ["DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "The keys that sign receipts and checkpoints (no key needed)")
      .annotate(OpenApi.Description, "One signed-note verifier key line per key: the current one first, then earlier generations, which older receipts name."),
    HttpApiEndpoint.get("getConsistencyProof", "/ledger/proof/consistency", {
      query: { from: TreeSize, to: TreeSize },
      success: ConsistencyProofResponse.annotate({ description: "RFC 6962 consistency proof, base64 hashes" }),
      error: errorResponses("LedgerProof", ["InvalidRequest", "DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "Proof that the log of `to` leaves extends the log of `from` (no key needed)")
      .annotate(OpenApi.Description, "Check it against two checkpoints of those sizes (RFC 9162, 2.1.4.2); a log that was rewritten has none that verifies."),
  )
  .annotateMerge(
    OpenApi.annotations({ title: "Receipts log", description: "Every quota movement in an RFC 6962 Merkle tree, signed; checkable without our code." }),
  );

export const receipts = HttpApiGroup.make("receipts", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getReceipts", "/receipts/:requestId", {
      params: { requestId: Schema.String.annotate({ identifier: "RequestId" }) },
      success: ReceiptsResponse.annotate({ description: "The request's receipts: its charge, or the release of its reservation" }),
      error: errorResponses("Receipt", [...KEYED, "NotFound"]),
    })
      .annotate(OpenApi.Summary, "The signed receipts of one of the account's requests")
      .annotate(OpenApi.Description, "A charged request has its charge; a failed one the release of its reservation. Another account's request: 404."),
    HttpApiEndpoint.get("getInclusionProof", "/ledger/proof/inclusion", {
      query: { requestId: Schema.String.annotate({ identifier: "ReceiptRequestId" }), treeSize: TreeSize },
      success: InclusionProofResponse.annotate({ description: "RFC 6962 audit path of the request's newest leaf, base64 hashes" }),
      error: errorResponses("Receipt", [...KEYED, "InvalidRequest", "NotFound"]),
    })
      .annotate(OpenApi.Summary, "Proof that one of the account's receipts is in the log of treeSize leaves")
      .annotate(OpenApi.Description, "The audit path of the request's newest leaf (RFC 9162, 2.1.3.2), against a checkpoint of treeSize leaves."),
    HttpApiEndpoint.get("getStatement", "/user/statement", {
      query: { period: BillingPeriod, from: Schema.optionalKey(TreeSizes) },
      success: StatementResponse.annotate({ description: "Every receipt of the period, proved against one checkpoint, and the totals" }),
      error: errorResponses("Receipt", [...KEYED, "InvalidRequest"]),
    })
      .annotate(OpenApi.Summary, "A month's bill that proves itself")
      .annotate(OpenApi.Description, "verifier/verify-bill.mjs checks it with the key and the checkpoints saved earlier (from= their sizes)."),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Receipts", description: "The account's receipts, proofs and statements." }));
