import { createHash, createHmac, createPrivateKey, createPublicKey, createSecretKey, sign, verify } from "node:crypto";
import { Layer } from "effect";
import { ChainCrypto, type ChainCryptoShape } from "../../ports/chain-crypto.ts";

// DER of a PKCS#8 Ed25519 private key up to its 32-byte seed, and of an SPKI public key up to its 32 bytes.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

const publicKeyFrom = (raw: string) => createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(raw, "base64")]), format: "der", type: "spki" });

/** The ledger's keys: an HMAC key for event chains and an Ed25519 key pair (from a 32-byte seed) for seals. */
export const makeNodeChainCrypto = (keys: { readonly eventChainKey: Buffer; readonly ledgerSealSeed: Buffer }): ChainCryptoShape => {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, keys.ledgerSealSeed.subarray(0, 32)]), format: "der", type: "pkcs8" });
  // A KeyObject made once: HMAC with a raw Buffer key sets the key up on every call, ~5× slower.
  const chainKey = createSecretKey(keys.eventChainKey);
  const publicKey = (createPublicKey(privateKey).export({ format: "der", type: "spki" }) as Buffer).subarray(SPKI_ED25519_PREFIX.length).toString("base64");
  return {
    mac: (text) => createHmac("sha256", chainKey).update(text).digest("hex"),
    digest: (text) => createHash("sha256").update(text).digest("hex"),
    sign: (text) => sign(null, Buffer.from(text), privateKey).toString("base64"),
    verify: (text, signature, key) => {
      try {
        return verify(null, Buffer.from(text), publicKeyFrom(key), Buffer.from(signature, "base64"));
      } catch {
        return false;
      }
    },
    publicKey,
  };
};

export const nodeChainCryptoLayer = (keys: { readonly eventChainKey: Buffer; readonly ledgerSealSeed: Buffer }) =>
  Layer.succeed(ChainCrypto)(makeNodeChainCrypto(keys));
