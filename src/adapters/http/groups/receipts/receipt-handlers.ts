import { Effect } from "effect";
import { consistencyProofOf, currentCheckpoint, inclusionProofOf, receiptsOf, statementOf } from "../../../../application/receipts/receipts.ts";
import { NoteSigner } from "../../../../ports/note-signer.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { BinaryReply, GroupHandlers } from "../../api/mount.ts";
import { queryValue } from "../../api/query-value.ts";
import { BillingPeriod, TreeSize, TreeSizes } from "./receipt-schemas.ts";
import type { ledger, receipts } from "./receipts-api.ts";

/**
 * The receipts log's routes (docs/audit-and-receipts.md, Receipts): the checkpoint and the verifier key in plain text,
 * as signed-note tools read them; proofs and statements in the usual envelope. Query values come as
 * sent and are held to the schemas the document shows for them.
 */
const plainText = (text: string): BinaryReply => ({ bytes: new TextEncoder().encode(text), contentType: "text/plain; charset=utf-8", headers: {} });

/** The routes of both groups of receipts-api.ts: the log's own (ledger) and the account's receipts. */
export const receiptHandlers: GroupHandlers<typeof ledger | typeof receipts, AppServices> = {
  getLedgerCheckpoint: () => Effect.map(currentCheckpoint, ({ note }) => plainText(note)),
  getLedgerKey: () =>
    Effect.gen(function* () {
      const signer = yield* NoteSigner;
      return plainText([signer.verifierKey, ...signer.earlierVerifierKeys].map((line) => `${line}\n`).join(""));
    }),
  getConsistencyProof: ({ query }) =>
    Effect.gen(function* () {
      return yield* consistencyProofOf(yield* queryValue(TreeSize, "from", query.from), yield* queryValue(TreeSize, "to", query.to));
    }),
  getInclusionProof: ({ principal, query }) =>
    Effect.gen(function* () {
      const treeSize = yield* queryValue(TreeSize, "treeSize", query.treeSize);
      return yield* inclusionProofOf(principal.account.accountId, query.requestId ?? "", treeSize);
    }),
  getReceipts: ({ principal, params }) => Effect.map(receiptsOf(principal.account.accountId, params.requestId), (receipts) => ({ receipts })),
  getStatement: ({ principal, query }) =>
    Effect.gen(function* () {
      const period = yield* queryValue(BillingPeriod, "period", query.period);
      const from = query.from === undefined ? [] : yield* queryValue(TreeSizes, "from", query.from);
      return yield* statementOf(principal.account.accountId, period, from);
    }),
};
