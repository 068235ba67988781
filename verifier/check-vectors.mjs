#!/usr/bin/env node
// @ts-check
/**
 * Recomputes test/fixtures/integrity-vectors.json from docs/integrity.md alone (node:crypto, and
 * this folder's customer-side verifier for receipts): the keys from the server secret, RFC 8785
 * JSON, the event chain, the seal's Merkle root and signature, the receipts log's leaves, root,
 * checkpoint and receipt signatures. Another implementation can be held to the same file.
 *
 *   node verifier/check-vectors.mjs [vectors.json]
 *
 * Exit 0: every value agrees. Exit 1: each disagreement named.
 */
import { createHash, createHmac, createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { leafHash, verifyInclusion } from "./merkle-proofs.mjs";
import { canonicalize, receiptSigned } from "./receipts.mjs";
import { openCheckpoint, parseVerifierKey } from "./signed-note.mjs";

const file = process.argv[2] ?? new URL("../test/fixtures/integrity-vectors.json", import.meta.url);
const vectors = JSON.parse(readFileSync(file, "utf8"));
/** @type {string[]} */
const failures = [];
/** @param {string} name @param {unknown} got @param {unknown} want */
const expectSame = (name, got, want) => {
  if (got !== want) failures.push(`${name}: computed ${JSON.stringify(got)}, the vectors hold ${JSON.stringify(want)}`);
};

// Keys: HMAC-SHA256 keyed with the secret's UTF-8 bytes, over the label.
/** @param {string} label */
const derive = (label) => createHmac("sha256", vectors.serverSecret).update(label).digest();
for (const [name, { label, hex }] of Object.entries(vectors.keys)) expectSame(`key ${name}`, derive(label).toString("hex"), hex);

for (const [i, { value, text }] of vectors.canonicalJson.entries()) expectSame(`canonical JSON ${i}`, canonicalize(value), text);

// The chain: HMAC-SHA256 (hex) over the canonical JSON of the event's chained content.
const chainKey = derive("its/event-chain/v1");
/** @param {string} text */
const mac = (text) => createHmac("sha256", chainKey).update(text, "utf8").digest("hex");
let prev = "";
for (const event of vectors.chain) {
  const text = canonicalize(["its-event-chain/v1", event.stream, event.revision, event.eventId, event.type, event.data, event.metadata, prev]);
  expectSame(`chain text of ${event.stream}@${event.revision}`, text, event.text);
  expectSame(`chain prev of ${event.stream}@${event.revision}`, prev, event.prev);
  expectSame(`chain mac of ${event.stream}@${event.revision}`, mac(text), event.mac);
  prev = mac(text);
}

// The seal: SHA-256 (hex) of canonical JSON leaves and nodes, an odd node carried up; Ed25519 over the statement.
/** @param {unknown} value */
const digest = (value) => createHash("sha256").update(canonicalize(value), "utf8").digest("hex");
const { seal } = vectors;
const leaves = [...seal.heads]
  .sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0))
  .map((head) => digest(["leaf", head.stream, head.revision, head.mac]));
expectSame("seal leaves", JSON.stringify(leaves), JSON.stringify(seal.leaves));
/** @type {string[]} */
let level = leaves;
while (level.length > 1) {
  const next = [];
  for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? digest(["node", level[i], level[i + 1]]) : /** @type {string} */ (level[i]));
  level = next;
}
expectSame("seal root", level[0], seal.root);
expectSame("seal root of no heads", digest(["empty"]), seal.emptyRoot);
const statement = canonicalize(["its-ledger-seal/v2", seal.sealedAt, seal.streams, seal.root, seal.intervalSeconds]);
expectSame("seal statement", statement, seal.statement);
// An Ed25519 key from a 32-byte seed: PKCS#8 DER prefix, then the seed.
const sealKey = createPrivateKey({
  key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), derive("its/ledger-seal/v1")]),
  format: "der",
  type: "pkcs8",
});
const sealPublic = /** @type {Buffer} */ (createPublicKey(sealKey).export({ format: "der", type: "spki" })).subarray(12);
expectSame("seal public key", sealPublic.toString("base64"), seal.publicKey);
expectSame("seal signature", sign(null, Buffer.from(statement), sealKey).toString("base64"), seal.signature);
// A seal is checked with the raw public key it publishes: SPKI DER prefix, then the 32 bytes.
const published = createPublicKey({
  key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(seal.publicKey, "base64")]),
  format: "der",
  type: "spki",
});
if (!verify(null, Buffer.from(statement), published, Buffer.from(seal.signature, "base64")))
  failures.push("seal signature: does not verify with its public key");

// The receipts log: RFC 6962 leaves over each body's canonical JSON; a signed checkpoint; signed receipts.
const { receipts } = vectors;
const verifierKey = parseVerifierKey(receipts.verifierKey);
expectSame("receipts verifier key name", verifierKey.name, receipts.origin);
let checkpoint;
try {
  checkpoint = openCheckpoint(receipts.checkpoint, verifierKey);
} catch (error) {
  failures.push(`receipts checkpoint: ${/** @type {Error} */ (error).message}`);
}
expectSame("receipts checkpoint root", checkpoint && Buffer.from(checkpoint.root).toString("base64"), receipts.root);
expectSame("receipts checkpoint origin", checkpoint?.origin, receipts.origin);
/** @param {Uint8Array} left @param {Uint8Array} right */
const node = (left, right) => new Uint8Array(createHash("sha256").update(Uint8Array.of(1)).update(left).update(right).digest());
const hashes = receipts.leaves.map((/** @type {{ text: string }} */ leaf) => leafHash(Buffer.from(leaf.text)));
for (const [i, leaf] of receipts.leaves.entries()) {
  expectSame(`receipt ${i} text`, canonicalize(leaf.body), leaf.text);
  expectSame(`receipt ${i} leaf hash`, Buffer.from(hashes[i]).toString("hex"), leaf.leafHash);
  if (!receiptSigned(leaf.receipt, verifierKey)) failures.push(`receipt ${i}: its signature does not verify`);
}
// Three leaves: the root is node(node(l0, l1), l2) (RFC 6962's split at the largest power of two below the size).
if (hashes.length === 3) {
  const root = node(node(hashes[0], hashes[1]), hashes[2]);
  expectSame("receipts root", Buffer.from(root).toString("base64"), receipts.root);
  const proof = [hashes[1], hashes[2]];
  if (!verifyInclusion({ index: 0, size: 3, leaf: hashes[0], proof, root })) failures.push("receipts: leaf 0's inclusion proof does not verify");
} else failures.push(`receipts: the vectors hold ${hashes.length} leaves, this check expects 3`);

if (failures.length > 0) {
  for (const failure of failures) console.error(`FAIL ${failure}`);
  process.exit(1);
}
console.log("OK every integrity vector agrees");
