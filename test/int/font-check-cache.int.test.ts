import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { FontCheck } from "../../src/adapters/image/fonts/font-check.ts";
import { cachedFontCheck, fontCheckKey } from "../../src/adapters/image/fonts/font-check-cache.ts";

/**
 * The fonts' start check is kept between starts only while its inputs stay the same: real files in
 * a temporary folder stand for the font packages.
 */
const answer: FontCheck = { available: [{ family: "DejaVu Sans", scripts: ["Latin"] }], unavailable: [] };
let root: string;
let fonts: string;
const conf = "<fontconfig><dir>fonts</dir></fontconfig>";
const counted = () => {
  const calls = { count: 0 };
  return { calls, run: async () => (calls.count++, answer) };
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "its-font-check-"));
  fonts = path.join(root, "fonts");
  fs.mkdirSync(path.join(fonts, "400Regular"), { recursive: true });
  fs.writeFileSync(path.join(fonts, "400Regular", "Face.ttf"), "glyphs");
});

describe("the fonts' start check, kept between starts", () => {
  it("runs once for the same files and reads its answer after", async () => {
    const { calls, run } = counted();
    const file = path.join(root, "cache", "font-check.json");
    const key = fontCheckKey(conf, [fonts], ["claims"]);
    expect(await cachedFontCheck([file], key, run)).toEqual({ check: answer, kept: false });
    expect(await cachedFontCheck([file], fontCheckKey(conf, [fonts], ["claims"]), run)).toEqual({ check: answer, kept: true });
    expect(calls.count).toBe(1);
  });

  it("checks again when a face in a subfolder changes, the fontconfig configuration changes or the claims do", () => {
    const key = fontCheckKey(conf, [fonts], ["claims"]);
    fs.writeFileSync(path.join(fonts, "400Regular", "Face.ttf"), "other glyphs");
    const changedFace = fontCheckKey(conf, [fonts], ["claims"]);
    expect(changedFace).not.toBe(key);
    expect(fontCheckKey("<fontconfig><dir>elsewhere</dir></fontconfig>", [fonts], ["claims"])).not.toBe(changedFace);
    expect(fontCheckKey(conf, [fonts], ["other claims"])).not.toBe(fontCheckKey(conf, [fonts], ["claims"]));
    fs.rmSync(path.join(fonts, "400Regular", "Face.ttf"));
    expect(fontCheckKey(conf, [fonts], ["claims"])).not.toBe(changedFace);
  });

  it("keeps it in the next place where the first cannot be written, and checks again over a damaged file", async () => {
    const { calls, run } = counted();
    // A place under a file: no process, root's included, can write there (as a read-only node_modules).
    const unwritable = path.join(root, "a-file");
    fs.writeFileSync(unwritable, "");
    const fallback = path.join(root, "data", "font-check.json");
    const places = [path.join(unwritable, "font-check.json"), fallback];
    const key = fontCheckKey(conf, [fonts], []);
    await cachedFontCheck(places, key, run);
    expect(fs.existsSync(fallback)).toBe(true);
    expect((await cachedFontCheck(places, key, run)).kept).toBe(true);
    fs.writeFileSync(fallback, '{"key": "');
    expect((await cachedFontCheck(places, key, run)).kept).toBe(false);
    expect(calls.count).toBe(2);
  });
});
