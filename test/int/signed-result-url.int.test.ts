import { describe, expect, it } from "vitest";
import { makeResultUrlSigner } from "../../src/adapters/results/signed-result-url.ts";

const SECRET = "a-test-secret-that-is-at-least-32-bytes-long";
const ID = "0b7c6d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e";
const EXPIRES = new Date("2026-11-11T12:00:00.000Z");
const BEFORE = new Date(EXPIRES.getTime() - 1000);

describe("ResultUrlSigner", () => {
  const signer = makeResultUrlSigner(SECRET);
  const query = signer.sign(ID, EXPIRES);

  it("signs as a query string with the expiry in unix seconds", () => {
    expect(query).toMatch(/^expires=1794398400&signature=[A-Za-z0-9_-]{43}$/);
  });

  it("accepts its own URL before the expiry", () => {
    expect(signer.verify(ID, query, BEFORE)).toBe("ok");
    expect(signer.verify(ID, new URLSearchParams(query), BEFORE)).toBe("ok");
  });

  it("says expired from the expiry on", () => {
    expect(signer.verify(ID, query, EXPIRES)).toBe("expired");
    expect(signer.verify(ID, query, new Date(EXPIRES.getTime() + 86_400_000))).toBe("expired");
  });

  it("says tampered for another result id, a moved expiry or a changed signature", () => {
    const params = new URLSearchParams(query);
    const signature = params.get("signature") ?? "";
    expect(signer.verify("0b7c6d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5f", query, BEFORE)).toBe("tampered");
    expect(signer.verify(ID, `expires=${Number(params.get("expires")) + 3600}&signature=${signature}`, BEFORE)).toBe("tampered");
    for (let i = 0; i < signature.length; i++) {
      const flipped = signature.slice(0, i) + (signature[i] === "A" ? "B" : "A") + signature.slice(i + 1);
      expect(signer.verify(ID, `expires=${params.get("expires")}&signature=${flipped}`, BEFORE)).toBe("tampered");
    }
  });

  it("says tampered, not expired, for a forged URL that is also out of date", () => {
    expect(signer.verify(ID, `expires=1&signature=${"A".repeat(43)}`, BEFORE)).toBe("tampered");
  });

  it.each([
    "",
    "expires=abc&signature=x",
    `signature=${"A".repeat(43)}`,
    "expires=1794398400",
    "expires=-5&signature=" + "A".repeat(43),
    "expires=1794398400&signature=" + "A".repeat(44),
  ])("says tampered for the malformed query %j", (malformed) => {
    expect(signer.verify(ID, malformed, BEFORE)).toBe("tampered");
  });

  it("does not accept a URL signed with another secret", () => {
    const other = makeResultUrlSigner("another-secret-that-is-at-least-32-bytes-long");
    expect(signer.verify(ID, other.sign(ID, EXPIRES), BEFORE)).toBe("tampered");
  });

  it("refuses a short secret", () => {
    expect(() => makeResultUrlSigner("short")).toThrow(/at least 32 bytes/);
  });
});
