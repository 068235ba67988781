/**
 * An append-only Merkle tree as RFC 6962 §2.1 (RFC 9162 §2.1) defines it: leaf hash
 * H(0x00 ‖ leaf), node hash H(0x01 ‖ left ‖ right), the tree of n leaves split at the largest
 * power of two below n. Roots and proofs are answered for any size the tree has reached, so a
 * checkpoint made at size m can be proved against later ones.
 *
 * The hash of every complete subtree is kept, level by level, in one growing byte array each:
 * appending is O(log n) hashes, and a root or proof for any size is O(log² n) at worst, ~20 µs-
 * scale work at 10⁶ leaves. The hash function is given (SHA-256 in production): the domain does
 * no I/O and imports nothing.
 */
export type Hash = Uint8Array;
export type HashFunction = (data: Uint8Array) => Hash;

const HASH_BYTES = 32;

/** Hashes of one level of complete subtrees, packed into one array that doubles as it fills. */
class HashColumn {
  private bytes = new Uint8Array(HASH_BYTES * 64);
  length = 0;

  push(hash: Hash): void {
    if ((this.length + 1) * HASH_BYTES > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(hash, this.length * HASH_BYTES);
    this.length += 1;
  }

  at(index: number): Hash {
    return this.bytes.slice(index * HASH_BYTES, (index + 1) * HASH_BYTES);
  }
}

/** The largest power of two strictly below n (n ≥ 2): where RFC 6962 splits a tree of n leaves. */
const splitPoint = (n: number): number => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

const isPowerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

export class MerkleTree {
  private readonly levels: Array<HashColumn> = [new HashColumn()];
  private readonly hash: HashFunction;

  constructor(hash: HashFunction) {
    this.hash = hash;
  }

  /** H(0x00 ‖ leaf). */
  leafHash(leaf: Uint8Array): Hash {
    const prefixed = new Uint8Array(leaf.length + 1);
    prefixed.set(leaf, 1);
    return this.hash(prefixed);
  }

  /** H(0x01 ‖ left ‖ right). */
  nodeHash(left: Hash, right: Hash): Hash {
    const joined = new Uint8Array(1 + left.length + right.length);
    joined[0] = 1;
    joined.set(left, 1);
    joined.set(right, 1 + left.length);
    return this.hash(joined);
  }

  get size(): number {
    return this.levels[0]!.length;
  }

  /** Appends a leaf by its entry bytes; returns its index. */
  append(leaf: Uint8Array): number {
    return this.appendLeafHash(this.leafHash(leaf));
  }

  /** Appends a leaf already hashed with `leafHash`; returns its index. */
  appendLeafHash(leafHash: Hash): number {
    const index = this.size;
    let hash = leafHash;
    let position = index;
    for (let level = 0; ; level += 1) {
      this.levels[level] ??= new HashColumn();
      this.levels[level]!.push(hash);
      // A right child completes its parent: carry the pair up.
      if (position % 2 === 0) break;
      hash = this.nodeHash(this.levels[level]!.at(position - 1), hash);
      position = Math.floor(position / 2);
    }
    return index;
  }

  /** The leaf hash at `index`. */
  leafHashAt(index: number): Hash {
    this.checkSize(index + 1);
    return this.levels[0]!.at(index);
  }

  /** The root of the tree's first `size` leaves (SHA-256 of nothing for the empty tree). */
  root(size: number = this.size): Hash {
    this.checkSize(size);
    return size === 0 ? this.hash(new Uint8Array(0)) : this.subtree(0, size);
  }

  /** RFC 6962 PATH(index, D[0:size]): the audit path from the leaf up, sibling hashes only. */
  inclusionProof(index: number, size: number): ReadonlyArray<Hash> {
    this.checkSize(size);
    if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
    const path: Array<Hash> = [];
    const walk = (m: number, start: number, n: number): void => {
      if (n === 1) return;
      const k = splitPoint(n);
      if (m < k) {
        walk(m, start, k);
        path.push(this.subtree(start + k, start + n));
      } else {
        walk(m - k, start + k, n - k);
        path.push(this.subtree(start, start + k));
      }
    };
    walk(index, 0, size);
    return path;
  }

  /** RFC 6962 PROOF(from, D[0:to]): shows the tree of `to` leaves extends the tree of `from`. */
  consistencyProof(from: number, to: number): ReadonlyArray<Hash> {
    this.checkSize(to);
    if (!Number.isSafeInteger(from) || from < 0 || from > to) throw new RangeError(`no consistency proof from ${from} to ${to}`);
    if (from === 0 || from === to) return [];
    const proof: Array<Hash> = [];
    const walk = (m: number, start: number, n: number, whole: boolean): void => {
      if (m === n) {
        if (!whole) proof.push(this.subtree(start, start + n));
        return;
      }
      const k = splitPoint(n);
      if (m <= k) {
        walk(m, start, k, whole);
        proof.push(this.subtree(start + k, start + n));
      } else {
        walk(m - k, start + k, n - k, false);
        proof.push(this.subtree(start, start + k));
      }
    };
    walk(from, 0, to, true);
    return proof;
  }

  /** MTH(D[start:end]), from the stored complete subtrees. */
  private subtree(start: number, end: number): Hash {
    const n = end - start;
    if (isPowerOfTwo(n) && start % n === 0) return this.levels[Math.log2(n)]!.at(start / n);
    const k = splitPoint(n);
    return this.nodeHash(this.subtree(start, start + k), this.subtree(start + k, end));
  }

  private checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.size) throw new RangeError(`the tree has ${this.size} leaves, not ${size}`);
  }
}
