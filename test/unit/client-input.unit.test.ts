import { isIP } from "node:net";
import { Effect, Exit } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LONG_STRING_BYTES, parseJsonBody } from "../../src/adapters/http/bodies/parse-json-body.ts";
import { forwardedClient } from "../../src/adapters/http/server/forwarded-client.ts";
import { bearerCredential } from "../../src/application/access/bearer-credential.ts";
import { decodeImagePayload } from "../../src/application/transformations/image-payload.ts";
import { formatApiKey, parseApiKey } from "../../src/domain/api-key.ts";
import { ECHO_MAX_CHARACTERS } from "../../src/domain/echo.ts";
import { findTemplate, TEMPLATES } from "../../src/domain/template-catalog/template-catalog.ts";
import { resolveTryOnSettings, TRYON_SETTING_VALUES } from "../../src/domain/tryon-settings.ts";

/**
 * Property-based tests of every parser of client input: for any input, the answer is right or a
 * clean refusal, never a throw of the wrong kind, and the time is linear in the input's length.
 */
const decode = (payload: string, maxBytes = 1 << 20) => Effect.runSyncExit(decodeImagePayload("image", payload, maxBytes));
const timeOf = (work: () => unknown) => {
  const started = performance.now();
  work();
  return performance.now() - started;
};
/** An IPv4-mapped IPv6 address is its IPv4 address, as the socket layer reports it. */
const plain = (address: string) => (/^::ffff:/i.test(address) && isIP(address.slice(7)) === 4 ? address.slice(7) : address);
const alphabet = (characters: string) => fc.constantFrom(...characters.split(""));

describe("image payloads", () => {
  const mimeType = fc.constantFrom("", "image/png", "image/jpeg", "application/octet-stream", "image/svg+xml");
  const encodings = fc.constantFrom("standard", "unpadded", "url-safe", "data-url", "mime-lines");
  const encode = (bytes: Uint8Array, how: string, type: string) => {
    const standard = Buffer.from(bytes).toString("base64");
    switch (how) {
      case "unpadded":
        return standard.replaceAll("=", "");
      case "url-safe":
        return Buffer.from(bytes).toString("base64url");
      case "data-url":
        return `data:${type};charset=utf-8;base64,${standard}`;
      case "mime-lines":
        return (standard.match(/.{1,76}/g) ?? []).join("\r\n");
      default:
        return standard;
    }
  };

  it("decodes every encoding of any bytes to exactly those bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 3000 }), encodings, mimeType, (bytes, how, type) => {
        const exit = decode(encode(bytes, how, type));
        expect(Exit.isSuccess(exit) && Buffer.from(exit.value).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it("answers any text with bytes within the limit or a clean refusal", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: alphabet("data:;,=/+-_ \nABCabc019"), maxLength: 400 })), (payload) => {
        const exit = decode(payload, 200);
        if (Exit.isSuccess(exit)) expect(exit.value.length).toBeLessThanOrEqual(200);
        else expect(["InvalidImage", "ImageTooLarge"]).toContain(exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error._tag : "defect");
      }),
    );
  });

  it("takes time linear in the length of any data-URL-looking text", () => {
    fc.assert(
      fc.property(fc.string({ unit: alphabet("data:;,=/+-.w"), minLength: 1, maxLength: 64 }), (unit) => {
        const payload = `data:${unit.repeat(Math.ceil(200_000 / unit.length))}`;
        expect(timeOf(() => decode(payload, 1 << 20))).toBeLessThan(100);
      }),
      { numRuns: 30 },
    );
  });
});

describe("the JSON body fast path", () => {
  const long = "A".repeat(LONG_STRING_BYTES + 7);
  const longNumbers = Array.from({ length: LONG_STRING_BYTES / 2 + 1 }, () => 1);
  // Any JSON with long base64-like strings at random places: the fast path cuts those out.
  const withLongStrings = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.jsonValue({ maxDepth: 1 }),
      fc.constant(long),
      // Escapes next to a closing quote, then a long stretch outside any string: where a quote-hopping walk would go wrong.
      fc.string({ unit: alphabet('\\"a'), maxLength: 6 }),
      fc.constant(longNumbers),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 3 }),
    ),
  })).value;

  it("reads what JSON.parse reads", () => {
    fc.assert(
      fc.property(withLongStrings, (value) => {
        const text = JSON.stringify({ body: value, image: long });
        expect(parseJsonBody(Buffer.from(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses exactly what JSON.parse refuses, after any one-character edit of a body", () => {
    const edit = fc.record({
      at: fc.nat(),
      insert: fc.option(fc.constantFrom('"', "\\", "{", "}", "[", "]", ":", ",", "a", "1", " ", "é"), { nil: undefined }),
    });
    fc.assert(
      fc.property(withLongStrings, edit, (value, { at, insert }) => {
        const text = JSON.stringify({ note: 'a "quote"', body: value, image: long });
        const position = at % text.length;
        const edited = text.slice(0, position) + (insert ?? "") + text.slice(position + (insert === undefined ? 1 : 0));
        let expected: unknown;
        try {
          expected = JSON.parse(edited);
        } catch {
          expect(() => parseJsonBody(Buffer.from(edited))).toThrow(SyntaxError);
          return;
        }
        expect(parseJsonBody(Buffer.from(edited))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

/** Deep equality of two JSON values by a walk with its own stack: expect's recursive one overflows on the depths below. */
const sameJson = (left: unknown, right: unknown): boolean => {
  const pairs: Array<[unknown, unknown]> = [[left, right]];
  for (let pair = pairs.pop(); pair !== undefined; pair = pairs.pop()) {
    const [a, b] = pair;
    if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) {
      if (a !== b) return false;
      continue;
    }
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return false;
      pairs.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]]);
    }
  }
  return true;
};

describe("the JSON body fast path at any depth", () => {
  // Arrays and objects nested up to 20,000 deep (JSON.parse reads any depth), a long string inside or beside.
  const nested = fc.record({
    kinds: fc.array(fc.constantFrom("[", "{"), { minLength: 1, maxLength: 8 }),
    depth: fc.integer({ min: 1, max: 20_000 }),
    innermost: fc.constantFrom("long", "short", "empty"),
    beside: fc.boolean(),
  });
  const textOf = ({ kinds, depth, innermost, beside }: { kinds: Array<string>; depth: number; innermost: string; beside: boolean }) => {
    const opens: Array<string> = [];
    const closes: Array<string> = [];
    for (let level = 0; level < depth; level++) {
      const kind = kinds[level % kinds.length]!;
      opens.push(kind === "[" ? "[" : '{"a":');
      closes.push(kind === "[" ? "]" : "}");
    }
    const core = innermost === "long" ? `"${"B".repeat(LONG_STRING_BYTES)}"` : innermost === "short" ? '"b"' : "0";
    const image = beside ? `"image":"${"A".repeat(LONG_STRING_BYTES + 1)}",` : "";
    return `{${image}"deep":${opens.join("")}${core}${closes.reverse().join("")}}`;
  };

  it("reads what JSON.parse reads, however deep (no recursion)", () => {
    fc.assert(
      fc.property(nested, (shape) => {
        const text = textOf(shape);
        expect(sameJson(parseJsonBody(Buffer.from(text)), JSON.parse(text))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe("catalog lookups", () => {
  const known = TEMPLATES.map((t) => [t.templateType, t.template] as const);
  const names = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", ...known.flat()));

  it("finds a template exactly when the catalog holds that type and name", () => {
    fc.assert(
      fc.property(names, names, (templateType, template) => {
        const lookup = findTemplate(templateType, template);
        expect(lookup.found).toBe(known.some(([type, name]) => type === templateType && name === template));
      }),
      { numRuns: 500 },
    );
  });

  it("resolves settings to allowed values only, and quotes no client value longer than the echo limit", () => {
    const settingNames = fc.oneof(fc.constantFrom(...Object.keys(TRYON_SETTING_VALUES), "__proto__", "constructor"), fc.string({ maxLength: 300 }));
    const values = fc.oneof(
      fc.constantFrom(...Object.values(TRYON_SETTING_VALUES).flat()),
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ minLength: 100, maxLength: 500 }),
    );
    fc.assert(
      fc.property(fc.dictionary(settingNames, values, { maxKeys: 6 }), (raw) => {
        const resolution = resolveTryOnSettings(raw);
        if (resolution.ok) {
          for (const [name, value] of Object.entries(resolution.settings))
            expect(TRYON_SETTING_VALUES[name as keyof typeof TRYON_SETTING_VALUES]).toContain(value);
        } else {
          for (const problem of resolution.problems) {
            expect(problem.path.length).toBeLessThanOrEqual("settings.".length + ECHO_MAX_CHARACTERS + 40);
            expect(problem.message.length).toBeLessThanOrEqual(ECHO_MAX_CHARACTERS + 200);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("headers", () => {
  it("parses an API key exactly when it is one the format can make, and round-trips it", () => {
    const keyId = fc.string({ unit: alphabet("abcdefghijklmnopqrstuvwxyz0123456789"), minLength: 16, maxLength: 16 });
    const secret = fc.string({ unit: alphabet("ABCXYZabcxyz0189_-"), minLength: 43, maxLength: 128 });
    fc.assert(
      fc.property(keyId, secret, (id, sec) => {
        expect(parseApiKey(formatApiKey(id, sec))).toEqual({ keyId: id, secret: sec });
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: alphabet("its_abc019-"), maxLength: 200 })), (presented) => {
        const parsed = parseApiKey(presented);
        if (parsed) expect(formatApiKey(parsed.keyId, parsed.secret)).toBe(presented);
      }),
    );
  });

  it("reads a Bearer credential whatever the scheme's case and the spaces after it, and nothing else, in linear time", () => {
    const credential = fc.string({ unit: alphabet("its_abcXYZ019-"), minLength: 1, maxLength: 80 });
    const scheme = fc.constantFrom("Bearer", "bearer", "BEARER", "bEaReR");
    fc.assert(
      fc.property(scheme, fc.integer({ min: 1, max: 4 }), credential, (name, spaces, presented) => {
        expect(bearerCredential(`${name}${" ".repeat(spaces)}${presented}`)).toBe(presented);
      }),
    );
    for (const header of [undefined, "", "Bearer", "Bearer ", "Basic abc", "Bearerits_x", "Bearer a b", "Token its_x", "\tBearer its_x"]) {
      expect(bearerCredential(header)).toBeUndefined();
    }
    // A pathological header: spaces, then none of what a credential ends with.
    expect(timeOf(() => bearerCredential(`Bearer${" ".repeat(200_000)}\u0000`))).toBeLessThan(50);
  });

  it("takes the client from the trusted hops only, whatever the client wrote to their left", () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6());
    fc.assert(
      fc.property(
        fc.array(address, { maxLength: 6 }),
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }),
        address,
        fc.nat({ max: 4 }),
        (honest, forged, peer, hops) => {
          const header = [...forged, ...honest].join(", ");
          const client = forwardedClient({ hops }, peer, header, "https");
          const trustedChain = [...honest, peer].slice(-(hops + 1));
          // The answer is the peer or an entry a trusted proxy wrote, never one the client forged.
          if (hops <= honest.length) expect(client.address.toLowerCase()).toBe(plain(trustedChain[0]!).toLowerCase());
          else expect([...honest, peer, ...forged].map((a) => a.trim().toLowerCase())).toContain(client.address.toLowerCase());
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads a forwarded header in time linear in its length", () => {
    const header = Array.from({ length: 20_000 }, (_, i) => `10.0.${i % 256}.1`).join(", ");
    expect(timeOf(() => forwardedClient({ hops: 3 }, "127.0.0.1", header, "https, ".repeat(20_000)))).toBeLessThan(50);
  });
});
