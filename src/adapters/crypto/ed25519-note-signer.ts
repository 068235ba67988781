import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import { Layer } from "effect";
import { NoteSigner, type NoteSignerShape } from "../../ports/note-signer.ts";

// DER of a PKCS#8 Ed25519 private key up to its 32-byte seed, and of an SPKI public key up to its 32 bytes.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX_LENGTH = 12;
/** The signed-note signature type of Ed25519. */
const ED25519 = 0x01;

/**
 * A C2SP signed-note signer over an Ed25519 key made from a 32-byte seed. The key id is the first
 * four bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key), as the spec and Go's sumdb note define it.
 */
export const makeEd25519NoteSigner = (name: string, seed: Buffer, earlierSeeds: ReadonlyArray<Buffer> = []): NoteSignerShape => {
  if (name.length === 0 || /[\s+]/u.test(name)) throw new Error(`a signed-note name has no spaces or '+': ${JSON.stringify(name)}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed.subarray(0, 32)]), format: "der", type: "pkcs8" });
  const publicKey = (createPublicKey(privateKey).export({ format: "der", type: "spki" }) as Buffer).subarray(SPKI_ED25519_PREFIX_LENGTH);
  const typedKey = Buffer.concat([Buffer.of(ED25519), publicKey]);
  const keyIdBytes = createHash("sha256")
    .update(Buffer.concat([Buffer.from(`${name}\n`), typedKey]))
    .digest()
    .subarray(0, 4);
  const signature = (data: Uint8Array) => sign(null, data, privateKey);
  return {
    name,
    keyId: keyIdBytes.toString("hex"),
    verifierKey: `${name}+${keyIdBytes.toString("hex")}+${typedKey.toString("base64")}`,
    earlierVerifierKeys: earlierSeeds.map((earlier) => makeEd25519NoteSigner(name, earlier).verifierKey),
    signNote: (text) => {
      if (!text.endsWith("\n")) throw new Error("a note's text ends with a newline");
      const signed = Buffer.concat([keyIdBytes, signature(Buffer.from(text))]).toString("base64");
      return `${text}\n\u2014 ${name} ${signed}\n`;
    },
    sign: (data) => signature(data).toString("base64"),
  };
};

/**
 * The signer of key generation `generation` (LEDGER_KEY_GENERATION): rotating the key is raising
 * it; every earlier generation's verifier key stays published, so older receipts still check.
 */
export const ed25519NoteSignerLayer = (name: string, seedOf: (generation: number) => Buffer, generation = 1) =>
  Layer.succeed(NoteSigner)(
    makeEd25519NoteSigner(
      name,
      seedOf(generation),
      Array.from({ length: generation - 1 }, (_, i) => seedOf(generation - 1 - i)),
    ),
  );
