// @ts-check
/** Checks receipts and statements of the image transformation API's receipts log: node:crypto only. */
import { verify } from "node:crypto";
import { leafHash, verifyConsistency, verifyInclusion } from "./merkle-proofs.mjs";
import { keyWithId, openCheckpoint } from "./signed-note.mjs";

/**
 * RFC 8785 (JSON Canonicalization Scheme) for the values a receipt holds: object members sorted by
 * their UTF-16 code units, ECMAScript number and string forms, no whitespace.
 * @param {unknown} value
 * @returns {string}
 */
export const canonicalize = (value) =>
  Array.isArray(value)
    ? `[${value.map(canonicalize).join(",")}]`
    : value !== null && typeof value === "object"
      ? `{${Object.entries(value)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([key, member]) => `${JSON.stringify(key)}:${canonicalize(member)}`)
          .join(",")}}`
      : JSON.stringify(value);

/**
 * Whether the receipt's signature is a log key's (the one its keyId names) over its canonical body.
 * @param {{ body: object, keyId: string, signature: string }} receipt
 * @param {import("./signed-note.mjs").VerifierKey | ReadonlyArray<import("./signed-note.mjs").VerifierKey>} keys
 */
export const receiptSigned = (receipt, keys) => {
  const key = keyWithId(Array.isArray(keys) ? keys : [keys], receipt.keyId);
  return key !== undefined && verify(null, Buffer.from(canonicalize(receipt.body)), key.key, Buffer.from(receipt.signature, "base64"));
};

/** @param {string} text */
const bytes = (text) => new Uint8Array(Buffer.from(text, "base64"));

/**
 * Everything a customer can check of a monthly statement: the checkpoint's signature, each receipt's
 * signature and inclusion under it, the totals, and that the statement's checkpoint extends every
 * checkpoint saved before (the statement carries a consistency proof from each saved size it was
 * asked for with `from=`), and that every receipt the customer kept from a response (`kept`, each
 * named as the customer knows it) of this period is in the statement as it was signed: a log
 * rewritten without it, or with it changed, contradicts a receipt its own key signed. Returns the
 * failures, named; none means the bill holds.
 * @param {{
 *   statement: {
 *     period: string,
 *     checkpoint: string,
 *     receipts: Array<{ receipt: { body: any, keyId: string, signature: string }, proof: string[] }>,
 *     totals: { units: number, charges: number, releases: number, refunds: number },
 *     consistency?: Array<{ from: number, hashes: string[] }>,
 *   },
 *   verifierKey: import("./signed-note.mjs").VerifierKey | ReadonlyArray<import("./signed-note.mjs").VerifierKey>,
 *   saved?: string[],
 *   kept?: Array<{ name: string, receipt: { body: any, keyId: string, signature: string } }>,
 * }} input
 */
export const checkStatement = ({ statement, verifierKey, saved = [], kept = [] }) => {
  /** @type {string[]} */
  const failures = [];
  let head;
  try {
    head = openCheckpoint(statement.checkpoint, verifierKey);
  } catch (error) {
    return [`the statement's checkpoint: ${/** @type {Error} */ (error).message}`];
  }
  const totals = { units: 0, charges: 0, releases: 0, refunds: 0 };
  for (const { receipt, proof } of statement.receipts) {
    const { body } = receipt;
    const name = `receipt ${body.kind} of ${body.requestId} (leaf ${body.leafIndex})`;
    if (!receiptSigned(receipt, verifierKey)) failures.push(`${name}: the signature does not verify`);
    if (body.logOrigin !== head.origin) failures.push(`${name}: it belongs to log ${body.logOrigin}, not ${head.origin}`);
    if (body.period !== statement.period) failures.push(`${name}: it is of period ${body.period}, not ${statement.period}`);
    const leaf = leafHash(Buffer.from(canonicalize(body)));
    if (!verifyInclusion({ index: body.leafIndex, size: head.size, leaf, proof: proof.map(bytes), root: head.root })) {
      failures.push(`${name}: not included in the checkpoint of ${head.size} leaves`);
    }
    if (body.kind === "charge") {
      totals.units += body.units;
      totals.charges += 1;
    } else if (body.kind === "refund") {
      totals.units -= body.units;
      totals.refunds += 1;
    } else {
      totals.releases += 1;
    }
  }
  for (const key of /** @type {const} */ (["units", "charges", "releases", "refunds"])) {
    if (totals[key] !== statement.totals[key]) failures.push(`totals: ${key} is ${statement.totals[key]}, the receipts add up to ${totals[key]}`);
  }
  for (const { name, receipt } of kept) {
    const { body } = receipt;
    const what = `kept receipt ${name} (${body?.kind} of ${body?.requestId}, leaf ${body?.leafIndex})`;
    if (!receiptSigned(receipt, verifierKey)) failures.push(`${what}: its signature does not verify`);
    else if (body.period !== statement.period) continue;
    else if (body.logOrigin !== head.origin) failures.push(`${what}: it is of log ${body.logOrigin}, the statement's is ${head.origin}`);
    else if (body.leafIndex >= head.size) failures.push(`${what}: the statement's checkpoint of ${head.size} leaves does not reach it`);
    else {
      const listed = statement.receipts.find((entry) => entry.receipt.body.leafIndex === body.leafIndex)?.receipt.body;
      if (listed === undefined || canonicalize(listed) !== canonicalize(body)) {
        failures.push(
          `${what}: the statement ${listed === undefined ? "lacks it" : `holds another receipt there (${listed.kind} of ${listed.requestId})`}: the log contradicts a receipt it signed`,
        );
      }
    }
  }
  for (const checkpoint of saved) {
    try {
      const old = openCheckpoint(checkpoint, verifierKey);
      const proof = old.size === head.size ? [] : statement.consistency?.find((entry) => entry.from === old.size)?.hashes;
      if (old.origin !== head.origin) failures.push(`a saved checkpoint is of log ${old.origin}, not ${head.origin}`);
      else if (proof === undefined)
        failures.push(`no consistency proof from the saved checkpoint of ${old.size} leaves: ask the statement with from=${old.size}`);
      else if (!verifyConsistency({ size1: old.size, size2: head.size, root1: old.root, root2: head.root, proof: proof.map(bytes) })) {
        failures.push(`the checkpoint of ${head.size} leaves is not consistent with the saved one of ${old.size}: the log was rewritten`);
      }
    } catch (error) {
      failures.push(`a saved checkpoint: ${/** @type {Error} */ (error).message}`);
    }
  }
  return failures;
};
