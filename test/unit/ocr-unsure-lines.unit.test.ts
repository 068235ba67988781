import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { secondLanguage, stackedLines, unsureLines } from "../../src/adapters/ocr/unsure-lines.ts";
import type { OcrLanguage, OcrLine, OcrScript } from "../../src/ports/engines/ocr-engine.ts";

/** Issue 30: a second script on a page OSD names Latin, found from the lines English read unsurely. */
const line = (confidence: number, x0: number, y0: number, x1: number, y1: number): OcrLine => ({
  text: "…",
  confidence,
  bbox: { x0, y0, x1, y1 },
  words: [],
});
const page = () =>
  sharp({ create: { width: 400, height: 300, channels: 3, background: "#ffffff" } })
    .png()
    .toBuffer();

describe("lines English read unsurely", () => {
  it("are those below 40, when there are at least two", () => {
    const sure = line(95, 0, 0, 100, 20);
    const unsure = [line(12, 0, 30, 200, 50), line(39, 0, 60, 150, 80)];
    expect(unsureLines([sure, ...unsure])).toEqual(unsure);
    expect(unsureLines([sure, line(12, 0, 30, 200, 50)])).toEqual([]);
    expect(unsureLines([line(10, 5, 5, 5, 20), line(10, 0, 0, 10, 0)])).toEqual([]);
  });

  it("are stacked one under another, as wide as the widest", async () => {
    const stack = await stackedLines(await page(), [line(10, 0, 30, 200, 50), line(10, 10, 60, 160, 90)]);
    const { width, height } = await sharp(stack).metadata();
    expect(width).toBe(200 + 16);
    expect(height).toBe(8 + 20 + 8 + 30 + 8);
  });
});

describe("the language of the unsure lines", () => {
  const unsure = [line(10, 0, 30, 200, 50), line(20, 0, 60, 150, 80)];
  const readers = (script: OcrScript | undefined, readings: Partial<Record<OcrLanguage, { text: string; confidence: number }>>) => {
    const asked: Array<OcrLanguage> = [];
    return {
      asked,
      scriptOf: async () => script,
      candidates: (named: OcrScript): ReadonlyArray<OcrLanguage> => (named === "Arabic" ? ["ara", "fas", "urd"] : named === "Bengali" ? ["ben", "asm"] : []),
      read: async (language: OcrLanguage) => {
        asked.push(language);
        return readings[language] ?? { text: "", confidence: 0 };
      },
    };
  };

  it("is none where OSD names the stack Latin or nothing, or there are no unsure lines", async () => {
    expect(await secondLanguage(await page(), unsure, readers("Latin", {}))).toBeUndefined();
    expect(await secondLanguage(await page(), unsure, readers(undefined, {}))).toBeUndefined();
    const none = readers("Arabic", { ara: { text: "نظام", confidence: 90 } });
    expect(await secondLanguage(await page(), [], none)).toBeUndefined();
    expect(none.asked).toEqual([]);
  });

  it("is the script's language that reads the stack most surely, each read once", async () => {
    const arabic = readers("Arabic", { ara: { text: "نظام", confidence: 80 }, fas: { text: "نظام", confidence: 85 }, urd: { text: "نظام", confidence: 70 } });
    expect(await secondLanguage(await page(), unsure, arabic)).toBe("fas");
    expect(arabic.asked).toEqual(["ara", "fas", "urd"]);
  });

  it("is not a language whose reading is not written as that language writes", async () => {
    const bengali = readers("Bengali", { ben: { text: "বর্গক্ষেত্রের", confidence: 44 }, asm: { text: "বগৰক্ষেত্ৰের সমষ্টির", confidence: 66 } });
    expect(await secondLanguage(await page(), unsure, bengali)).toBe("ben");
  });
});
