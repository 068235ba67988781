import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeEd25519NoteSigner } from "../../src/adapters/crypto/ed25519-note-signer.ts";
import { makeNodeChainCrypto } from "../../src/adapters/crypto/node-chain-crypto.ts";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { canonicalJson } from "../../src/application/event-sourcing/event-checksum.ts";
import { sealStatement } from "../../src/application/event-sourcing/events/seal-events.ts";
import { chainText } from "../../src/application/hash-chains/event-chain.ts";
import { merkleRoot } from "../../src/application/hash-chains/merkle.ts";
import { MerkleTree } from "../../src/domain/receipts/merkle-tree.ts";

const root = path.resolve(import.meta.dirname, "../..");
const file = path.join(root, "test/fixtures/integrity-vectors.json");
const vectors = JSON.parse(fs.readFileSync(file, "utf8"));
const secrets = loadServerSecrets({ serverSecret: vectors.serverSecret, dataDir: "/nonexistent" });
const chain = makeNodeChainCrypto({ eventChainKey: secrets.eventChainKey, ledgerSealSeed: secrets.ledgerSealSeed });

/** docs/integrity.md's vectors, recomputed with the service's own code: a change to an algorithm fails here before it reaches a store. */
describe("integrity vectors", () => {
  it("derive the keys as the server does", () => {
    expect(secrets.eventChainKey.toString("hex")).toBe(vectors.keys.eventChainKey.hex);
    expect(secrets.ledgerSealSeed.toString("hex")).toBe(vectors.keys.ledgerSealSeed.hex);
    expect(secrets.receiptLogSeed(1).toString("hex")).toBe(vectors.keys.receiptLogSeed.hex);
  });

  it("write canonical JSON as RFC 8785 does, and as JSON.stringify does for what it covers", () => {
    for (const { value, text } of vectors.canonicalJson) expect(canonicalJson(value)).toBe(text);
  });

  it("chain events with the server's mac", () => {
    for (const event of vectors.chain) {
      const text = chainText(event.stream, event.revision, event, event.prev);
      expect(text).toBe(event.text);
      expect(chain.mac(text)).toBe(event.mac);
    }
  });

  it("seal heads with the server's root and signature", () => {
    const { seal } = vectors;
    expect(merkleRoot(chain.digest, seal.heads)).toBe(seal.root);
    expect(merkleRoot(chain.digest, [])).toBe(seal.emptyRoot);
    expect(sealStatement(seal)).toBe(seal.statement);
    expect(chain.publicKey).toBe(seal.publicKey);
    expect(chain.sign(seal.statement)).toBe(seal.signature);
  });

  it("log receipts with the server's leaves, root, checkpoint and signatures", () => {
    const { receipts } = vectors;
    const signer = makeEd25519NoteSigner(receipts.origin, secrets.receiptLogSeed(1));
    const tree = new MerkleTree((data) => new Uint8Array(createHash("sha256").update(data).digest()));
    for (const leaf of receipts.leaves) {
      expect(canonicalJson(leaf.body)).toBe(leaf.text);
      tree.append(Buffer.from(leaf.text));
      expect(Buffer.from(tree.leafHashAt(tree.size - 1)).toString("hex")).toBe(leaf.leafHash);
      expect(signer.sign(new TextEncoder().encode(leaf.text))).toBe(leaf.receipt.signature);
    }
    expect(Buffer.from(tree.root()).toString("base64")).toBe(receipts.root);
    expect(signer.verifierKey).toBe(receipts.verifierKey);
    expect(signer.signNote(`${receipts.origin}\n${receipts.leaves.length}\n${receipts.root}\n`)).toBe(receipts.checkpoint);
  });

  it("are recomputed by verifier/check-vectors.mjs without the project's code, which names a wrong value", () => {
    expect(execFileSync(process.execPath, [path.join(root, "verifier/check-vectors.mjs")], { encoding: "utf8" })).toContain("OK");
    const changed = { ...vectors, chain: vectors.chain.map((event: { mac: string }, i: number) => (i === 1 ? { ...event, mac: "0".repeat(64) } : event)) };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "its-vectors-"));
    const edited = path.join(dir, "vectors.json");
    fs.writeFileSync(edited, JSON.stringify(changed));
    const run = spawnSync(process.execPath, [path.join(root, "verifier/check-vectors.mjs"), edited], { encoding: "utf8" });
    fs.rmSync(dir, { recursive: true });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("chain mac of quota-acc_vectors-2026-11@1");
  });
});
