import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { Layer } from "effect";
import { WebhookCrypto, type WebhookCryptoShape } from "../../ports/webhook-crypto.ts";

const SEAL_PREFIX = "aes256gcm:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key bytes of a `whsec_` secret: the base64 after the prefix (Standard Webhooks). */
const secretBytes = (secret: string): Buffer => Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");

/** Standard Webhooks' signature of one message under one secret. */
export const standardWebhookSignature = (secret: string, messageId: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", secretBytes(secret)).update(`${messageId}.${timestamp}.${body}`).digest("base64")}`;

/**
 * Webhook secrets sealed with AES-256-GCM under a key derived from the server secret (ServerSecrets'
 * webhookSecretKey): the store holds `aes256gcm:v1:` + base64(iv | tag | ciphertext), never the secret.
 */
export const makeNodeWebhookCrypto = (key: Buffer): WebhookCryptoShape => ({
  newSecret: () => `whsec_${randomBytes(24).toString("base64")}`,
  seal: (secret) => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return SEAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64");
  },
  unseal: (sealed) => {
    if (!sealed.startsWith(SEAL_PREFIX)) return undefined;
    const bytes = Buffer.from(sealed.slice(SEAL_PREFIX.length), "base64");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      // Another deployment's key, or an altered seal: GCM's tag refuses both.
      return undefined;
    }
  },
  sign: standardWebhookSignature,
  digest: (text) => createHash("sha256").update(text).digest("hex"),
});

export const nodeWebhookCryptoLayer = (key: Buffer) => Layer.succeed(WebhookCrypto)(makeNodeWebhookCrypto(key));
