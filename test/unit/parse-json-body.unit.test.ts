import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LONG_STRING_BYTES, parseJsonBody } from "../../src/adapters/http/bodies/parse-json-body.ts";

const base64 = (bytes: number) => randomBytes(bytes).toString("base64");
const long = base64(LONG_STRING_BYTES);
const parses = (text: string) => expect(parseJsonBody(Buffer.from(text))).toEqual(JSON.parse(text));
const refuses = (text: string) => {
  expect(() => JSON.parse(text)).toThrow(SyntaxError);
  expect(() => parseJsonBody(Buffer.from(text))).toThrow(SyntaxError);
};

describe("the JSON body parser", () => {
  it("reads what JSON.parse reads, long strings and all", () => {
    parses(JSON.stringify({ image: long, templateType: "social", template: "instagram-square" }));
    parses(JSON.stringify({ personImage: long, clothingImage: base64(LONG_STRING_BYTES + 3), settings: { fit: "regular" } }));
    parses(JSON.stringify({ images: [long, "short", long], nested: { deeper: [{ value: long }] }, n: 1.5, t: true, z: null }));
    parses(`  {\n "image" :\t"${long}" , "note": "a \\"quoted\\" word, a backslash \\\\ and é" }  `);
    parses(JSON.stringify({ short: "x".repeat(LONG_STRING_BYTES - 1), padding: "y".repeat(100) }));
    // An escaped quote must not shift the walk off the strings: here a long stretch of numbers follows.
    parses(`{"a": "\\"", "numbers": [${"1,".repeat(LONG_STRING_BYTES)}1], "c": "${long}"}`);
  });

  it("leaves JSON.parse to read long strings it must unescape, non-ASCII ones, and long keys", () => {
    parses(JSON.stringify({ image: `${long.slice(0, 100)}\n${long.slice(100)}`, quote: `"${long}"` }));
    parses(JSON.stringify({ text: `${"é".repeat(LONG_STRING_BYTES)}` }));
    parses(JSON.stringify({ [long]: "value", other: long }));
    parses(`{"a": "${"\\\\".repeat(LONG_STRING_BYTES)}", "b": "${long}"}`);
  });

  it("refuses malformed bodies as JSON.parse does, with a long string in them or not", () => {
    refuses(`{"image": "${long}"`);
    refuses(`{"image": "${long}`);
    refuses(`{"image": "${long}" "template": "x"}`);
    refuses(`{"image": ${long}}`);
    refuses(`{"image": "${long}", }`);
    refuses(`{"a": "\\"}`);
  });

  it("leaves a raw control character in a long string to the field's own validation", () => {
    const withBreak = `${long.slice(0, 76)}\n${long.slice(76)}`;
    expect(() => JSON.parse(`{"image": "${withBreak}"}`)).toThrow(SyntaxError);
    expect(parseJsonBody(Buffer.from(`{"image": "${withBreak}"}`))).toEqual({ image: withBreak });
  });

  it("keeps a __proto__ key an own property of the result", () => {
    const parsed = parseJsonBody(Buffer.from(`{"__proto__": "${long}", "image": "${long}"}`)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, "__proto__")?.value).toBe(long);
    expect(parsed.image).toBe(long);
  });

  it("cannot be fooled into substituting a client's string that looks like its markers", () => {
    const text = JSON.stringify({ image: long, forged: "\u0000not-the-marker:0" });
    expect(parseJsonBody(Buffer.from(text))).toEqual(JSON.parse(text));
  });
});
