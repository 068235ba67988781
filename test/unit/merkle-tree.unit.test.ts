import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MerkleTree } from "../../src/domain/receipts/merkle-tree.ts";
import { leafHash, verifyConsistency, verifyInclusion } from "../../verifier/merkle-proofs.mjs";
import vectors from "../fixtures/merkle/transparency-dev-vectors.json" with { type: "json" };

/**
 * The log's Merkle tree against the RFC 6962 test vectors published with transparency-dev/merkle
 * (the tree code behind Trillian and Sigstore's Rekor; source, commit and licence in the fixture),
 * and against the customer's verifier in verifier/ for every size 1–64 and random sizes to 10⁶.
 */
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const b64 = (text: string | null) => new Uint8Array(Buffer.from(text ?? "", "base64"));
const entry = (i: number) => new TextEncoder().encode(`leaf ${i}`);

let million: MerkleTree | undefined;
/** A tree of 10⁶ leaves, built once for the tests that need one (~10 s on a loaded 2-core machine). */
const millionLeaves = (): MerkleTree => {
  if (million) return million;
  million = new MerkleTree(sha256);
  for (let i = 0; i < 1_000_000; i += 1) million.appendLeafHash(sha256(entry(i)));
  return million;
};

const treeOf = (size: number) => {
  const tree = new MerkleTree(sha256);
  for (let i = 0; i < size; i += 1) tree.append(entry(i));
  return tree;
};

describe("the log's Merkle tree (RFC 6962)", () => {
  it("makes the published root of every prefix of the reference leaves, and the empty tree's", () => {
    const tree = new MerkleTree(sha256);
    expect(hex(tree.root())).toBe(vectors.rootHashes[0]);
    vectors.leafInputs.forEach((input, i) => {
      tree.append(Buffer.from(input, "hex"));
      for (let size = 0; size <= i + 1; size += 1) expect(hex(tree.root(size)), `root of ${size}`).toBe(vectors.rootHashes[size]);
    });
  });

  it("makes exactly the published proofs of the reference tree, and the verifier takes them", () => {
    const tree = new MerkleTree(sha256);
    vectors.leafInputs.forEach((input) => tree.append(Buffer.from(input, "hex")));
    const happy = (file: string) => file.endsWith("happy-path.json");
    for (const v of vectors.inclusion.filter((c) => happy(c.file) && c.treeSize <= 8)) {
      expect(
        tree.inclusionProof(v.leafIdx, v.treeSize).map((h) => Buffer.from(h).toString("base64")),
        v.file,
      ).toEqual(v.proof ?? []);
    }
    for (const v of vectors.consistency.filter((c) => happy(c.file) && c.size2 <= 8)) {
      expect(
        tree.consistencyProof(v.size1, v.size2).map((h) => Buffer.from(h).toString("base64")),
        v.file,
      ).toEqual(v.proof ?? []);
    }
  });

  it("verifies every published inclusion vector as it says: the happy paths pass, every mutation fails", () => {
    expect(vectors.inclusion.length).toBeGreaterThan(90);
    for (const v of vectors.inclusion) {
      const ok = verifyInclusion({ index: v.leafIdx, size: v.treeSize, leaf: b64(v.leafHash), proof: (v.proof ?? []).map(b64), root: b64(v.root) });
      expect(ok, v.file).toBe(!v.wantErr);
    }
  });

  it("verifies every published consistency vector as it says", () => {
    expect(vectors.consistency.length).toBeGreaterThan(90);
    for (const v of vectors.consistency) {
      const ok = verifyConsistency({ size1: v.size1, size2: v.size2, root1: b64(v.root1), root2: b64(v.root2), proof: (v.proof ?? []).map(b64) });
      expect(ok, v.file).toBe(!v.wantErr);
    }
  });

  it("proves every leaf of every tree of 1–64 leaves, and every pair of those trees consistent", () => {
    const tree = treeOf(64);
    for (let size = 1; size <= 64; size += 1) {
      const root = tree.root(size);
      for (let index = 0; index < size; index += 1) {
        const proof = tree.inclusionProof(index, size);
        expect(verifyInclusion({ index, size, leaf: leafHash(entry(index)), proof, root })).toBe(true);
        expect(verifyInclusion({ index, size, leaf: leafHash(entry(index + 1)), proof, root })).toBe(false);
      }
      for (let from = 1; from <= size; from += 1) {
        const proof = tree.consistencyProof(from, size);
        expect(verifyConsistency({ size1: from, size2: size, root1: tree.root(from), root2: root, proof }), `${from} → ${size}`).toBe(true);
        // A first tree whose last leaf was another: not extended by this one.
        const forked = treeOf(from - 1);
        forked.append(entry(-1));
        expect(verifyConsistency({ size1: from, size2: size, root1: forked.root(from), root2: root, proof })).toBe(false);
      }
    }
  });

  it("proves random leaves and random prefixes of a tree of 10⁶ leaves", () => {
    const tree = millionLeaves();
    const size = tree.size;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: size }), fc.integer({ min: 1, max: size }), fc.nat(), (a, b, pick) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const index = pick % to;
        const root = tree.root(to);
        const included = verifyInclusion({ index, size: to, leaf: tree.leafHashAt(index), proof: tree.inclusionProof(index, to), root });
        const consistent = verifyConsistency({ size1: from, size2: to, root1: tree.root(from), root2: root, proof: tree.consistencyProof(from, to) });
        return included && consistent;
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it("answers a root or proof at 10⁶ leaves in well under a millisecond", () => {
    const tree = millionLeaves();
    const started = performance.now();
    for (let i = 0; i < 100; i += 1) {
      const to = 999_000 + i * 10;
      tree.root(to);
      tree.inclusionProof(to - 1 - i * 997, to);
      tree.consistencyProof(500_000 + i * 3_001, to);
    }
    const perCall = (performance.now() - started) / 300;
    console.log(`Merkle tree at 10⁶ leaves: ${(perCall * 1000).toFixed(1)} µs per root or proof`);
    expect(perCall).toBeLessThan(1);
  }, 60_000);
});
