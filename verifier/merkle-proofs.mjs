// @ts-check
/**
 * Checks RFC 9162 §2.1.3.2 inclusion and §2.1.4.2 consistency proofs over SHA-256, as a customer
 * would without our code: node:crypto only. Tree sizes are plain numbers (exact up to 2⁵³), halved
 * by division, not shifted, so sizes past 2³¹ stay right.
 */
import { createHash } from "node:crypto";

/** @param {...Uint8Array} parts */
const sha256 = (...parts) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};

const NODE = Uint8Array.of(1);
/** @param {Uint8Array} left @param {Uint8Array} right */
const node = (left, right) => sha256(NODE, left, right);
/** @param {Uint8Array} a @param {Uint8Array} b */
const same = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);
/** @param {number} n */
const odd = (n) => n % 2 === 1;
/** @param {number} n */
const half = (n) => Math.floor(n / 2);
/** @param {number} n */
const isPowerOfTwo = (n) => n > 0 && 2 ** Math.round(Math.log2(n)) === n;
/** @param {unknown} n */
const isSize = (n) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;

/**
 * The step both RFC 9162 checks take when the sibling is on the left: hash it in, then shift both
 * indices right "until LSB(fn) is set or fn is 0", then once more.
 * @param {{ fn: number, sn: number }} at
 */
const climbPastLeftSiblings = (at) => {
  if (!odd(at.fn)) {
    while (!odd(at.fn) && at.fn !== 0) {
      at.fn = half(at.fn);
      at.sn = half(at.sn);
    }
  }
};

/** SHA-256(0x00 ‖ leaf): the hash a leaf's entry bytes have in the tree. */
export const leafHash = (/** @type {Uint8Array} */ leaf) => sha256(Uint8Array.of(0), leaf);

/**
 * Whether `proof` shows the leaf with hash `leaf` at `index` in the tree of `size` leaves whose root is `root`.
 * @param {{ index: number, size: number, leaf: Uint8Array, proof: ReadonlyArray<Uint8Array>, root: Uint8Array }} claim
 */
export const verifyInclusion = ({ index, size, leaf, proof, root }) => {
  if (!isSize(index) || !isSize(size) || index >= size || leaf.length !== 32) return false;
  const at = { fn: index, sn: size - 1 };
  let r = leaf;
  for (const p of proof) {
    if (at.sn === 0) return false;
    if (odd(at.fn) || at.fn === at.sn) {
      r = node(p, r);
      climbPastLeftSiblings(at);
    } else {
      r = node(r, p);
    }
    at.fn = half(at.fn);
    at.sn = half(at.sn);
  }
  return at.sn === 0 && same(r, root);
};

/**
 * Whether `proof` shows the tree of `size2` leaves (root `root2`) extends the tree of `size1` (root `root1`).
 * A proof from the empty tree means nothing and is refused, as transparency-dev/merkle does.
 * @param {{ size1: number, size2: number, root1: Uint8Array, root2: Uint8Array, proof: ReadonlyArray<Uint8Array> }} claim
 */
export const verifyConsistency = ({ size1, size2, root1, root2, proof }) => {
  if (!isSize(size1) || !isSize(size2) || size2 < size1 || size1 === 0) return false;
  if (size1 === size2) return proof.length === 0 && same(root1, root2);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  const at = { fn: size1 - 1, sn: size2 - 1 };
  while (odd(at.fn)) {
    at.fn = half(at.fn);
    at.sn = half(at.sn);
  }
  let fr = /** @type {Uint8Array} */ (path[0]);
  let sr = fr;
  for (const c of path.slice(1)) {
    if (at.sn === 0) return false;
    if (odd(at.fn) || at.fn === at.sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      climbPastLeftSiblings(at);
    } else {
      sr = node(sr, c);
    }
    at.fn = half(at.fn);
    at.sn = half(at.sn);
  }
  return same(fr, root1) && same(sr, root2) && at.sn === 0;
};
