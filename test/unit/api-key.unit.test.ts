import { describe, expect, it } from "vitest";
import { displayPrefix, formatApiKey, parseApiKey } from "../../src/domain/api-key.ts";

const secret = "A".repeat(20) + "_-" + "b".repeat(21);

describe("API key format", () => {
  it("round-trips its_<keyId>_<secret>, with underscores inside the secret", () => {
    const key = formatApiKey("abcdefgh12345678", secret);
    expect(key).toBe(`its_abcdefgh12345678_${secret}`);
    expect(parseApiKey(key)).toEqual({ keyId: "abcdefgh12345678", secret });
    expect(displayPrefix("abcdefgh12345678")).toBe("its_abcdefgh12345678");
  });

  it("rejects anything else", () => {
    for (const bad of [
      "",
      "its_",
      `its_short_${secret}`,
      `xyz_abcdefgh12345678_${secret}`,
      `its_abcdefgh12345678_tooShort`,
      `its_ABCDEFGH12345678_${secret}`,
    ]) {
      expect(parseApiKey(bad)).toBeUndefined();
    }
    expect(() => formatApiKey("bad", secret)).toThrow();
  });
});
