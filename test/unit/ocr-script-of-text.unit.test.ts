import { describe, expect, it } from "vitest";
import { bestScript, hasAccentedLetter, scriptScore } from "../../src/adapters/ocr/short-text-script.ts";
import { languageOfText, languagesUsed, withLanguages } from "../../src/adapters/ocr/text-languages.ts";

/** The string work behind issue 30's `auto`: which language each line is in, and which script a label's readings look like. */
describe("languages of a text read with several models", () => {
  const box = { x0: 0, y0: 0, x1: 10, y1: 10 };
  const line = (text: string) => ({ text, confidence: 90, bbox: box, words: [{ text, confidence: 90, bbox: box }] });

  it("names the language whose script has most of a line's characters, the first on a tie", () => {
    expect(languageOfText("Gargi", ["hin", "eng"])).toBe("eng");
    expect(languageOfText("सभी मनुष्यों को Gargi", ["hin", "eng"])).toBe("hin");
    expect(languageOfText("1.1.4 —", ["hin", "eng"])).toBe("hin");
    expect(languageOfText("インターフェイス設定", ["jpn", "eng"])).toBe("jpn");
  });

  it("names only the languages some line is in, in the model's order", () => {
    expect(languagesUsed("CDAC\nसभी मनुष्यों\n\nGargi", ["hin", "eng"])).toEqual(["hin", "eng"]);
    expect(languagesUsed("在任意使用者\n3 / 223", ["chi_tra", "eng"])).toEqual(["chi_tra"]);
    expect(languagesUsed("", ["ara", "eng"])).toEqual(["ara"]);
  });

  it("marks each block and line", () => {
    const [block] = withLanguages([{ text: "Gargi\nसभी मनुष्यों को", confidence: 90, bbox: box, lines: [line("Gargi"), line("सभी मनुष्यों को")] }], ["hin", "eng"]);
    expect(block?.language).toBe("hin");
    expect(block?.lines.map((each) => each.language)).toEqual(["eng", "hin"]);
  });
});

describe("the script of a label from its readings", () => {
  it("scores a reading by its confidence and the share of its letters in its own script", () => {
    expect(scriptScore({ script: "Devanagari", text: "राज", confidence: 95 })).toBe(95);
    expect(scriptScore({ script: "Latin", text: "", confidence: 90 })).toBe(0);
    expect(scriptScore({ script: "Cyrillic", text: "Нав UIT", confidence: 45 })).toBeCloseTo((45 * 3) / 6);
  });

  it("picks the best-scoring reading, none when nothing was read", () => {
    const readings = [
      { script: "Latin", text: "HG UIT", confidence: 41 },
      { script: "Devanagari", text: "मदद पाना", confidence: 95 },
      { script: "Bengali", text: "মদদ", confidence: 30 },
    ] as const;
    expect(bestScript(readings)).toBe("Devanagari");
    expect(bestScript([{ script: "Latin", text: "", confidence: 0 }])).toBeUndefined();
  });

  it("tells accented Latin letters from plain ones and from punctuation", () => {
    expect(hasAccentedLetter("tiéng")).toBe(true);
    expect(hasAccentedLetter("Hello Google — “ok”")).toBe(false);
  });
});
