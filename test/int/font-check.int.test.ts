import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Effect, Layer } from "effect";
import { describe, expect, it } from "vitest";
import { checkFonts } from "../../src/adapters/image/fonts/font-check.ts";
import { useShippedFontconfig } from "../../src/adapters/image/fonts/fontconfig-file.ts";
import { sharedFontCacheFolder, shippedFontFolders } from "../../src/adapters/image/fonts/shipped-font-families.ts";
import { checkedDesign } from "../../src/application/account-templates/account-templates.ts";
import { TemplateFonts } from "../../src/ports/engines/template-fonts.ts";

/**
 * Issue 45: the start check leaves out a family that cannot draw what it claims. fontconfig is read
 * once per process, so this file's process sees the shipped folders less Noto Serif's, as a broken
 * install would.
 */
const folders = shippedFontFolders().filter((folder) => !folder.endsWith(`${path.sep}noto-serif`));
useShippedFontconfig(fs.mkdtempSync(path.join(os.tmpdir(), "its-fonts-")), folders, sharedFontCacheFolder());

describe("the fonts' start check", () => {
  it("leaves out a family whose files are gone, naming each script, and keeps the others", async () => {
    const { available, unavailable } = await checkFonts();
    // The face a missing family resolves to draws Latin and Greek, and hex boxes for Cyrillic.
    expect(unavailable).toEqual(
      ["Latin", "Greek", "Cyrillic"].map((script) => ({ family: "Noto Serif", script, reason: expect.stringMatching(/not found|missing/) })),
    );
    expect(available.map(({ family }) => family)).not.toContain("Noto Serif");
    expect(available).toHaveLength(8);
  });

  it("leaves out a family claiming a script its files lack: the sample draws as hex boxes", async () => {
    const { unavailable } = await checkFonts([{ family: "Noto Sans Hebrew", scripts: ["Hebrew", "Korean"] }]);
    expect(unavailable).toEqual([
      { family: "Noto Sans Hebrew", script: "Korean", reason: "한국 draws as hex boxes: its files are missing or lack these glyphs" },
    ]);
  });

  it("refuses a design naming the family left out with a 400 naming it", async () => {
    const { available } = await checkFonts();
    const body = {
      name: "serif-card",
      canvas: { width: 400, height: 200, background: "#ffffff", format: "png" as const },
      layers: [
        {
          type: "text" as const,
          name: "title",
          box: { x: 0, y: 0, width: 400, height: 200 },
          font: "Noto Serif" as const,
          color: "#000000",
          maxSize: 48,
          minSize: 12,
          text: "Hello",
        },
      ],
    };
    const error = await Effect.runPromise(Effect.flip(checkedDesign(body)).pipe(Effect.provide(Layer.succeed(TemplateFonts)({ available }))));
    expect(error._tag).toBe("InvalidRequest");
    expect(error.details).toEqual([
      { path: "layers.0.font", message: expect.stringMatching(/^"Noto Serif" is not available on this service now; available: DejaVu Sans, /) },
    ]);
  });
});
