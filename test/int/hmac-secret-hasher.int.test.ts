import { randomBytes } from "node:crypto";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { hmacSecretHasher } from "../../src/adapters/security/hmac-secret-hasher.ts";
import { SecretHasher } from "../../src/ports/secret-hasher.ts";

const hasherWith = (key: Buffer) => Effect.runSync(Effect.service(SecretHasher).pipe(Effect.provide(hmacSecretHasher(key))));
const secret = "ewvqyiaGShNRYvKet4L66n5-Dhabi95A8l6UNgd9XoM";
/** The same length, one character apart: what a text comparison must still refuse. */
const nearMiss = `${secret.slice(0, -1)}N`;

describe("the HMAC secret hasher", () => {
  it("verifies the secret a hash was made from, again and again, and nothing else", () => {
    const hasher = hasherWith(randomBytes(32));
    const stored = hasher.hash(secret);
    expect(stored).toMatch(/^hmac-sha256:[\w-]{43}$/);
    for (let i = 0; i < 3; i++) expect(hasher.verify(secret, stored)).toBe(true);
    // Once the secret has verified (and is remembered), a near miss and an empty secret still fail.
    expect(hasher.verify(nearMiss, stored)).toBe(false);
    expect(hasher.verify("", stored)).toBe(false);
    expect(hasher.verify(`${secret}x`, stored)).toBe(false);
  });

  it("pairs a remembered secret with its own hash only", () => {
    const hasher = hasherWith(randomBytes(32));
    const [first, second] = [hasher.hash(secret), hasher.hash(nearMiss)];
    expect(hasher.verify(secret, first)).toBe(true);
    expect(hasher.verify(nearMiss, second)).toBe(true);
    expect(hasher.verify(secret, second)).toBe(false);
    expect(hasher.verify(nearMiss, first)).toBe(false);
  });

  it("refuses a hash made under another key, or stored in another form", () => {
    const [ours, theirs] = [hasherWith(randomBytes(32)), hasherWith(randomBytes(32))];
    expect(ours.verify(secret, theirs.hash(secret))).toBe(false);
    expect(ours.verify(secret, "sha256:abc")).toBe(false);
    expect(ours.verify(secret, ours.hash(secret).replace("hmac-sha256:", ""))).toBe(false);
  });
});
