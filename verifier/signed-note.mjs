// @ts-check
/**
 * Reads and checks C2SP signed notes (https://c2sp.org/signed-note) and the tlog-checkpoint body
 * they carry (https://c2sp.org/tlog-checkpoint), with an Ed25519 verifier key: node:crypto only.
 */
import { createHash, createPublicKey, verify } from "node:crypto";

const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * Parses a verifier key line `<name>+<key id hex>+<base64(0x01 ‖ public key)>`, checking that the
 * key id is the one the name and key hash to.
 * @param {string} line
 */
export const parseVerifierKey = (line) => {
  // Names hold no '+', but base64 may: the key is everything after the second '+'.
  const [name, keyIdHex, ...keyParts] = line.trim().split("+");
  const encoded = keyParts.join("+");
  if (!name || !keyIdHex || !encoded) throw new Error("the verifier key is not <name>+<key id>+<key>");
  const typed = Buffer.from(encoded, "base64");
  if (typed.length !== 33 || typed[0] !== 0x01) throw new Error("the verifier key is not an Ed25519 key");
  const keyId = createHash("sha256")
    .update(Buffer.concat([Buffer.from(`${name}\n`), typed]))
    .digest()
    .subarray(0, 4);
  if (keyId.toString("hex") !== keyIdHex.toLowerCase()) throw new Error("the verifier key's id does not match its name and key");
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, typed.subarray(1)]), format: "der", type: "spki" });
  return { name, keyId, key };
};

/** @typedef {ReturnType<typeof parseVerifierKey>} VerifierKey */

/**
 * Every verifier key line of a text (GET /api/ledger/key gives the current key first, then the
 * keys of earlier generations, which older receipts and checkpoints were signed with).
 * @param {string} text
 * @returns {VerifierKey[]}
 */
export const parseVerifierKeys = (text) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map(parseVerifierKey);

/**
 * The key of `keys` whose id is `keyId` (4 bytes, or their hex).
 * @param {ReadonlyArray<VerifierKey>} keys
 * @param {Uint8Array | string} keyId
 */
export const keyWithId = (keys, keyId) => {
  const hex = typeof keyId === "string" ? keyId.toLowerCase() : Buffer.from(keyId).toString("hex");
  return keys.find((key) => key.keyId.toString("hex") === hex);
};

/**
 * The text of a note whose signature by one of `keys` holds; throws naming what fails.
 * @param {string} note
 * @param {VerifierKey | ReadonlyArray<VerifierKey>} keys
 */
export const openNote = (note, keys) => {
  const known = Array.isArray(keys) ? keys : [/** @type {VerifierKey} */ (keys)];
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) throw new Error("not a signed note: no blank line before the signatures");
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split("\n");
  for (const line of lines) {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
    const signature = Buffer.from(match?.[2] ?? "", "base64");
    const key = signature.length === 68 ? keyWithId(known, signature.subarray(0, 4)) : undefined;
    if (!match || key === undefined || match[1] !== key.name) continue;
    if (verify(null, Buffer.from(text), key.key, signature.subarray(4))) return text;
    throw new Error(`the note's signature by ${key.name} does not verify`);
  }
  throw new Error(`the note carries no signature by ${known.map((key) => key.name).join(" or ")}`);
};

/**
 * The origin, size and root hash of a checkpoint note signed by one of `keys`.
 * @param {string} note
 * @param {VerifierKey | ReadonlyArray<VerifierKey>} keys
 */
export const openCheckpoint = (note, keys) => {
  const [origin, size, root] = openNote(note, keys).split("\n");
  if (!origin || !size || !/^(0|[1-9]\d{0,15})$/u.test(size) || !root) throw new Error("the note is not a checkpoint: origin, size, root hash");
  const hash = Buffer.from(root, "base64");
  if (hash.length !== 32) throw new Error("the checkpoint's root hash is not 32 bytes");
  return { origin, size: Number(size), root: new Uint8Array(hash) };
};
