import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fontconfigXml, useShippedFontconfig } from "../../src/adapters/image/fonts/fontconfig-file.ts";
import { shippedFontFolders } from "../../src/adapters/image/fonts/shipped-font-families.ts";

const before = process.env["FONTCONFIG_FILE"];
afterEach(() => {
  if (before === undefined) delete process.env["FONTCONFIG_FILE"];
  else process.env["FONTCONFIG_FILE"] = before;
});

describe("the service's fontconfig file", () => {
  it("names the shipped folders alone (no system folder, no include), the cache, and the CJK names customers were given as aliases", () => {
    const xml = fontconfigXml(["/app/node_modules/a & b"], ["/app/node_modules/.cache/fc", "/data/fontconfig/cache"]);
    expect([...xml.matchAll(/<dir>([^<]+)<\/dir>/g)].map((match) => match[1])).toEqual(["/app/node_modules/a &amp; b"]);
    expect(xml).not.toMatch(/<include|\/usr\/share\/fonts|\/etc\/fonts/);
    expect([...xml.matchAll(/<cachedir>([^<]+)<\/cachedir>/g)].map((match) => match[1])).toEqual(["/app/node_modules/.cache/fc", "/data/fontconfig/cache"]);
    expect(xml).toContain(
      '<alias binding="same"><family>Noto Sans CJK SC</family><prefer><family>Noto Sans SC</family><family>Noto Sans KR</family></prefer></alias>',
    );
  });

  it("finds every shipped folder in node_modules, each holding TrueType files", () => {
    for (const folder of shippedFontFolders()) {
      expect(folder).toContain(`${path.sep}node_modules${path.sep}`);
      expect(
        fs.readdirSync(folder, { recursive: true }).some((file) => String(file).endsWith(".ttf")),
        folder,
      ).toBe(true);
    }
  });

  it("is written under DATA_DIR and replaces whatever FONTCONFIG_FILE the environment held", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "its-fontconfig-"));
    process.env["FONTCONFIG_FILE"] = "/etc/fonts/fonts.conf";
    const file = useShippedFontconfig(dataDir, ["/somewhere/fonts"]);
    expect(file).toBe(path.join(dataDir, "fontconfig", "fonts.conf"));
    expect(process.env["FONTCONFIG_FILE"]).toBe(file);
    expect(fs.readFileSync(file, "utf8")).toContain("<dir>/somewhere/fonts</dir>");
    fs.rmSync(dataDir, { recursive: true });
  });
});
