import { Context } from "effect";

/**
 * The keys that make the event store tamper-evident, behind one port: application code computes
 * chains and seals but reaches no node:* module. Every key is derived from SERVER_SECRET.
 */
export interface ChainCryptoShape {
  /** HMAC-SHA256 under the event-chain key, lower-case hex: only a holder of the secret can make one. */
  readonly mac: (text: string) => string;
  /** SHA-256 of the UTF-8 text, lower-case hex: the Merkle tree of a seal, the body an idempotency event refers to. */
  readonly digest: (text: string) => string;
  /** An Ed25519 signature (base64) with the seal key. */
  readonly sign: (text: string) => string;
  /** Checks a seal signature against a public key (base64 of the raw 32 bytes). */
  readonly verify: (text: string, signature: string, publicKey: string) => boolean;
  /** The seal key's public half (base64 of the raw 32 bytes): what an auditor needs to check exported seals. */
  readonly publicKey: string;
}

export class ChainCrypto extends Context.Service<ChainCrypto, ChainCryptoShape>()("ChainCrypto") {}
