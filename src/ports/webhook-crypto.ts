import { Context } from "effect";

/**
 * What webhooks need of cryptography and randomness: secrets made, sealed for the store (so no
 * secret is kept in plain text) and opened again to sign, Standard Webhooks signatures, digests.
 */
export interface WebhookCryptoShape {
  /** `whsec_` + base64 of 24 random bytes. */
  readonly newSecret: () => string;
  /** The secret encrypted for the event store. */
  readonly seal: (secret: string) => string;
  /** The secret a seal holds; undefined when it was not sealed with this deployment's key. */
  readonly unseal: (sealed: string) => string | undefined;
  /** `v1,` + base64 HMAC-SHA256 of `${messageId}.${timestamp}.${body}` under the secret's bytes. */
  readonly sign: (secret: string, messageId: string, timestamp: number, body: string) => string;
  /** SHA-256 of the text, hex: deterministic ids. */
  readonly digest: (text: string) => string;
}

export class WebhookCrypto extends Context.Service<WebhookCrypto, WebhookCryptoShape>()("WebhookCrypto") {}
