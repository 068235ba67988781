import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { Layer } from "effect";
import { SecretHasher } from "../../ports/secret-hasher.ts";

/**
 * Keyed hash (HMAC-SHA256) of API key secrets. The secrets carry 256 bits of randomness, so a
 * slow password hash buys nothing; the key keeps a stolen event log from being checked offline.
 */
const PREFIX = "hmac-sha256:";

/** Stored hashes whose secret verified lately, at most this many (the longest remembered go first). */
const REMEMBERED_SECRETS = 10_000;

/** Equal texts, in time that depends on their length only (a key's length is public: its format fixes it). */
const sameText = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
};

export const hmacSecretHasher = (key: Buffer) => {
  // A KeyObject made once: a raw Buffer key is re-imported on every createHmac call.
  const keyObject = createSecretKey(key);
  const digest = (secret: string): Buffer => createHmac("sha256", keyObject).update(secret).digest();
  /**
   * The secret that last verified against each stored hash, in this process's memory only. A busy
   * key is then checked by comparing texts instead of computing an HMAC per request: the HMAC (a
   * native object per call, and its garbage) was an eighth of a keyed request's CPU under load
   * (bench/profile-throughput.ts). Which key is active, revoked or renamed is still asked of the
   * key directory on every request; a hash is only ever paired with a secret it was computed from.
   */
  const verified = new Map<string, string>();
  const remember = (stored: string, secret: string) => {
    verified.delete(stored);
    verified.set(stored, secret);
    if (verified.size > REMEMBERED_SECRETS) verified.delete(verified.keys().next().value!);
  };
  return Layer.succeed(SecretHasher)({
    hash: (secret) => PREFIX + digest(secret).toString("base64url"),
    verify: (secret, stored) => {
      const known = verified.get(stored);
      if (known !== undefined && sameText(known, secret)) return true;
      if (!stored.startsWith(PREFIX)) return false;
      const expected = Buffer.from(stored.slice(PREFIX.length), "base64url");
      const actual = digest(secret);
      const matches = expected.length === actual.length && timingSafeEqual(expected, actual);
      if (matches) remember(stored, secret);
      return matches;
    },
  });
};
