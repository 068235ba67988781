#!/usr/bin/env node
// @ts-check
/**
 * Checks a monthly statement of the image transformation API without its code (node:crypto only):
 *
 *   node verify-bill.mjs --key ledger-key.txt --statement statement.json [--checkpoint saved.txt ...] [--receipt kept.json ...]
 *
 * `--key`: the verifier key lines from GET /api/ledger/key (the current key and earlier ones); `--statement`: the body (or its `data`)
 * of GET /api/user/statement?period=YYYY-MM&from=N,…; `--checkpoint`: checkpoints saved earlier
 * from GET /api/ledger/checkpoint; `--receipt`: receipts kept from responses (a receipt, a charged
 * response's body, or GET /api/receipts/{requestId}'s). Exit 0: every receipt is signed and in the
 * log, the totals add up, the log extends every saved checkpoint and holds every kept receipt of the
 * period as signed. Exit 1: each failure named (a kept receipt by its file). Exit 2: bad usage.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkStatement } from "./receipts.mjs";
import { parseVerifierKeys } from "./signed-note.mjs";

const usage = "usage: verify-bill.mjs --key FILE --statement FILE [--checkpoint FILE ...] [--receipt FILE ...]";
let options;
try {
  options = parseArgs({
    options: {
      key: { type: "string" },
      statement: { type: "string" },
      checkpoint: { type: "string", multiple: true },
      receipt: { type: "string", multiple: true },
    },
  }).values;
} catch (error) {
  console.error(`${/** @type {Error} */ (error).message}\n${usage}`);
  process.exit(2);
}
if (!options.key || !options.statement) {
  console.error(usage);
  process.exit(2);
}
/**
 * The receipts a file holds: a receipt, a charged response's body (`data.receipt`), or
 * GET /api/receipts/{requestId}'s (`data.receipts`); each named by its file.
 * @param {string} file
 */
const keptReceipts = (file) => {
  const kept = JSON.parse(readFileSync(file, "utf8"));
  const found = kept.data?.receipts ?? kept.data?.receipt ?? kept.receipts ?? kept.receipt ?? kept;
  const receipts = Array.isArray(found) ? found : [found];
  return receipts.map((receipt, i) => ({ name: receipts.length === 1 ? file : `${file}#${i + 1}`, receipt }));
};

const parsed = JSON.parse(readFileSync(options.statement, "utf8"));
const statement = parsed.data ?? parsed;
const failures = checkStatement({
  statement,
  verifierKey: parseVerifierKeys(readFileSync(options.key, "utf8")),
  saved: (options.checkpoint ?? []).map((file) => readFileSync(file, "utf8")),
  kept: (options.receipt ?? []).flatMap((file) => keptReceipts(file)),
});
for (const failure of failures) console.log(`FAIL ${failure}`);
if (failures.length > 0) process.exit(1);
console.log(
  `OK ${statement.receipts.length} receipts of ${statement.period} in the log, ${statement.totals.units} units charged; ` +
    `consistent with ${(options.checkpoint ?? []).length} saved checkpoint(s) and ${(options.receipt ?? []).length} kept receipt file(s)`,
);
