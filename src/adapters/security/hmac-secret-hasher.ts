import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { Layer } from "effect";
import { SecretHasher } from "../../ports/secret-hasher.ts";

/**
 * Keyed hash (HMAC-SHA256) of API key secrets. The secrets carry 256 bits of randomness, so a
 * slow password hash buys nothing; the key keeps a stolen event log from being checked offline.
 */
const PREFIX = "hmac-sha256:";

export const hmacSecretHasher = (key: Buffer) => {
  // A KeyObject made once: a raw Buffer key is re-imported on every createHmac call.
  const keyObject = createSecretKey(key);
  const digest = (secret: string): Buffer => createHmac("sha256", keyObject).update(secret).digest();
  return Layer.succeed(SecretHasher)({
    hash: (secret) => PREFIX + digest(secret).toString("base64url"),
    verify: (secret, stored) => {
      if (!stored.startsWith(PREFIX)) return false;
      const expected = Buffer.from(stored.slice(PREFIX.length), "base64url");
      const actual = digest(secret);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  });
};
