#!/usr/bin/env node
// @ts-check
/**
 * Checks a monthly statement of the image transformation API without its code (node:crypto only):
 *
 *   node verify-bill.mjs --key ledger-key.txt --statement statement.json [--checkpoint saved.txt ...]
 *
 * `--key`: the verifier key lines from GET /api/ledger/key (the current key and earlier ones); `--statement`: the body (or its `data`)
 * of GET /api/user/statement?period=YYYY-MM&from=N,…; `--checkpoint`: checkpoints saved earlier
 * from GET /api/ledger/checkpoint. Exit 0: every receipt is signed and in the log, the totals add
 * up, and the log extends every saved checkpoint. Exit 1: each failure named. Exit 2: bad usage.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkStatement } from "./receipts.mjs";
import { parseVerifierKeys } from "./signed-note.mjs";

const usage = "usage: verify-bill.mjs --key FILE --statement FILE [--checkpoint FILE ...]";
let options;
try {
  options = parseArgs({ options: { key: { type: "string" }, statement: { type: "string" }, checkpoint: { type: "string", multiple: true } } }).values;
} catch (error) {
  console.error(`${/** @type {Error} */ (error).message}\n${usage}`);
  process.exit(2);
}
if (!options.key || !options.statement) {
  console.error(usage);
  process.exit(2);
}
const parsed = JSON.parse(readFileSync(options.statement, "utf8"));
const statement = parsed.data ?? parsed;
const failures = checkStatement({
  statement,
  verifierKey: parseVerifierKeys(readFileSync(options.key, "utf8")),
  saved: (options.checkpoint ?? []).map((file) => readFileSync(file, "utf8")),
});
for (const failure of failures) console.log(`FAIL ${failure}`);
if (failures.length > 0) process.exit(1);
console.log(
  `OK ${statement.receipts.length} receipts of ${statement.period} in the log, ${statement.totals.units} units charged; ` +
    `consistent with ${(options.checkpoint ?? []).length} saved checkpoint(s)`,
);
