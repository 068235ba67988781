import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { makeEd25519NoteSigner } from "../../src/adapters/crypto/ed25519-note-signer.ts";
import { makeNodeChainCrypto } from "../../src/adapters/crypto/node-chain-crypto.ts";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { canonicalJson } from "../../src/application/event-sourcing/event-checksum.ts";
import { sealStatement } from "../../src/application/event-sourcing/events/seal-events.ts";
import { chainText, GENESIS } from "../../src/application/hash-chains/event-chain.ts";
import { merkleRoot } from "../../src/application/hash-chains/merkle.ts";
import { MerkleTree } from "../../src/domain/receipts/merkle-tree.ts";
import type { JsonObject, JsonValue } from "../../src/ports/event-store.ts";

/**
 * Writes test/fixtures/integrity-vectors.json: docs/integrity.md's algorithms run by the service's
 * own code on fixed inputs, so that another implementation (verifier/check-vectors.mjs, an
 * auditor's) can be checked byte for byte. A unit test recomputes them with the code of the day.
 */
const serverSecret = "integrity-vectors-secret-0123456789abcdef";
const secrets = loadServerSecrets({ serverSecret, dataDir: "/nonexistent" });
const chain = makeNodeChainCrypto({ eventChainKey: secrets.eventChainKey, ledgerSealSeed: secrets.ledgerSealSeed });

// RFC 8785's ordering by UTF-16 code units differs from code point order here: "😀" (U+D83D…) sorts before "ﬁ" (U+FB01).
const canonicalCases: ReadonlyArray<JsonValue> = [
  { b: 1, a: [1e21, 1.5e-7, 100, 0.1, -0, 333333333.3333333], é: "caf\u00e9", "\ufb01": true, "\ud83d\ude00": null, "": '\u0007\n"\\/' },
  ["its-event-chain/v1", "quota-acc_1-2026-11", 0, { units: 2 }],
];

const events: ReadonlyArray<{ stream: string; revision: number; eventId: string; type: string; data: JsonObject; metadata: JsonObject }> = [
  {
    stream: "quota-acc_vectors-2026-11",
    revision: 0,
    eventId: "7a1c8e52-5a5e-4c1f-9a55-0f3f6c1b2d01",
    type: "QuotaReserved",
    data: {
      requestId: "req_1",
      keyId: "key_1",
      operation: "ocr",
      accountId: "acc_vectors",
      period: "2026-11",
      units: 3,
      limit: 100,
      expiresAt: "2026-11-29T01:05:00.000Z",
      at: "2026-11-29T01:00:00.000Z",
    },
    metadata: { schemaVersion: 2, actor: { kind: "api-key", keyId: "key_1", accountId: "acc_vectors" } },
  },
  {
    stream: "quota-acc_vectors-2026-11",
    revision: 1,
    eventId: "7a1c8e52-5a5e-4c1f-9a55-0f3f6c1b2d02",
    type: "QuotaCommitted",
    data: { requestId: "req_1", at: "2026-11-29T01:00:01.250Z" },
    metadata: { schemaVersion: 1, actor: { kind: "api-key", keyId: "key_1", accountId: "acc_vectors" } },
  },
];
let prev = GENESIS;
const chained = events.map((event) => {
  const text = chainText(event.stream, event.revision, event, prev);
  const mac = chain.mac(text);
  const vector = { ...event, prev, text, mac };
  prev = mac;
  return vector;
});

const heads = [
  { stream: "quota-acc_vectors-2026-11", revision: 1, mac: prev },
  { stream: "account-acc_vectors", revision: 2, mac: chain.mac("account head") },
  { stream: "store-identity", revision: 0, mac: chain.mac("store identity head") },
];
const sealedAt = "2026-11-29T01:10:00.000Z";
const statementV2 = sealStatement({ sealedAt, streams: heads.length, root: merkleRoot(chain.digest, heads), intervalSeconds: 3600 });

const origin = "image-transformation-api/receipts/3f0c9a8e-2b7d-4e61-8c5a-9d1e0f2a4b6c@1";
const signer = makeEd25519NoteSigner(origin, secrets.receiptLogSeed(1));
const bodies = ["charge", "release", "charge"].map((kind, leafIndex) => ({
  v: 1,
  logOrigin: origin,
  kind,
  account: "acc_vectors",
  requestId: `req_${leafIndex + 1}`,
  operation: "generate",
  units: 1,
  period: "2026-11",
  at: `2026-11-29T01:0${leafIndex}:00.000Z`,
  leafIndex,
}));
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());
const tree = new MerkleTree(sha256);
const leaves = bodies.map((body) => {
  const text = canonicalJson(body);
  tree.append(Buffer.from(text));
  return { body, text, leafHash: Buffer.from(tree.leafHashAt(tree.size - 1)).toString("hex") };
});
const root = Buffer.from(tree.root()).toString("base64");

const vectors = {
  about:
    "docs/integrity.md's algorithms on fixed inputs; made by `npm run vectors:integrity`, checked by test/unit/integrity-vectors.unit.test.ts and verifier/check-vectors.mjs",
  serverSecret,
  keys: {
    eventChainKey: { label: "its/event-chain/v1", hex: secrets.eventChainKey.toString("hex") },
    ledgerSealSeed: { label: "its/ledger-seal/v1", hex: secrets.ledgerSealSeed.toString("hex") },
    receiptLogSeed: { label: "its/receipts-log/v1", hex: secrets.receiptLogSeed(1).toString("hex") },
  },
  canonicalJson: canonicalCases.map((value) => ({ value, text: canonicalJson(value) })),
  chain: chained,
  seal: {
    heads,
    leaves: [...heads]
      .sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0))
      .map((head) => chain.digest(canonicalJson(["leaf", head.stream, head.revision, head.mac]))),
    root: merkleRoot(chain.digest, heads),
    emptyRoot: merkleRoot(chain.digest, []),
    sealedAt,
    streams: heads.length,
    intervalSeconds: 3600,
    statement: statementV2,
    publicKey: chain.publicKey,
    signature: chain.sign(statementV2),
  },
  receipts: {
    origin,
    verifierKey: signer.verifierKey,
    leaves: leaves.map(({ body, text, leafHash }) => ({
      body,
      text,
      leafHash,
      receipt: { body, keyId: signer.keyId, signature: signer.sign(new TextEncoder().encode(text)) },
    })),
    root,
    checkpoint: signer.signNote(`${origin}\n${bodies.length}\n${root}\n`),
  },
};

fs.writeFileSync(path.resolve(import.meta.dirname, "../../test/fixtures/integrity-vectors.json"), `${JSON.stringify(vectors, null, 2)}\n`);
