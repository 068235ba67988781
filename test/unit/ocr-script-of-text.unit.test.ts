import { describe, expect, it } from "vitest";
import { preferredOfScript, writtenAsLanguage } from "../../src/adapters/ocr/ocr-scripts.ts";
import { bestScript, mayBeAccentedLatin, readInLanguagesOf, scriptOfLabel, type ScriptReading, scriptScore } from "../../src/adapters/ocr/short-text-script.ts";
import { languageOfText, languagesUsed, withLanguages } from "../../src/adapters/ocr/text-languages.ts";
import { holdsOneLine } from "../../src/adapters/ocr/text-line-analysis.ts";
import type { OcrLanguage, OcrScript } from "../../src/ports/engines/ocr-engine.ts";

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

describe("languages of one script told apart by their letters", () => {
  it("takes an Assamese reading with Bengali ra (র) among its ra letters as one of a Bengali text", () => {
    // The Assamese model's reading of latexbangla-p2-1.png, a Bengali line: three ৰ, three র.
    expect(writtenAsLanguage("asm", "বগৰক্ষেত্ৰের ক্ষেত্ৰফলের সমষ্টির সমান।")).toBe(false);
    expect(writtenAsLanguage("asm", "অসমীয়া ভাষাৰ ৰাজ্যিক")).toBe(true);
    expect(writtenAsLanguage("asm", "সমান")).toBe(true);
    expect(writtenAsLanguage("ben", "বর্গক্ষেত্রের ক্ষেত্রফলের")).toBe(true);
  });

  it("prefers a reading that shows its own language's letters to a surer one that shows none", () => {
    // refcard-sr-1.png, a Serbian line: Bulgarian makes its ј a ")" and its ћ a "й", and is surer.
    const serbian = { language: "srp" as OcrLanguage, text: "Прочитај помоћ на мрежи", confidence: 74 };
    const bulgarian = { language: "bul" as OcrLanguage, text: "Прочита) помой на мрежи", confidence: 86 };
    expect(preferredOfScript(bulgarian, serbian)).toBe(serbian);
    // A Bulgarian word Serbian garbled, with made-up Serbian letters, read at 25: not evidence.
    const garbled = { language: "srp" as OcrLanguage, text: "незадњђлжителнихнч", confidence: 25 };
    const word = { language: "bul" as OcrLanguage, text: "незадължителния", confidence: 92 };
    expect(preferredOfScript(garbled, word)).toBe(word);
    // Where no reading shows its own letters, the surer one; the first on a tie.
    const [a, b] = [
      { language: "bul" as OcrLanguage, text: "Подеси избор", confidence: 95 },
      { language: "srp" as OcrLanguage, text: "Подеси избор", confidence: 95 },
    ];
    expect(preferredOfScript(a, b)).toBe(a);
    expect(preferredOfScript({ ...a, confidence: 90 }, b)).toBe(b);
  });
});

describe("the script of a label from its readings", () => {
  it("scores a reading by its confidence and the share of its letters in its own script", () => {
    expect(scriptScore({ script: "Devanagari", text: "राज", confidence: 95 })).toBe(95);
    expect(scriptScore({ script: "Latin", text: "", confidence: 90 })).toBe(0);
    expect(scriptScore({ script: "Cyrillic", text: "Нав UIT", confidence: 45 })).toBeCloseTo((45 * 3) / 6);
    // Digits are no script's evidence: a table's figures, or the digits a model makes up for another script's letters.
    expect(scriptScore({ script: "Latin", text: "Date Balance 10/03/2006 1,234.56", confidence: 74 })).toBe(74);
    expect(scriptScore({ script: "Devanagari", text: "राज ०१", confidence: 80 })).toBe(80);
    expect(scriptScore({ script: "Bengali", text: "810 078 06110 10611) ০৮৪ ০৪০", confidence: 47 })).toBe(0);
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

  it("takes a Japanese reading without kana for Han", () => {
    expect(bestScript([{ script: "Japanese", text: "インターフェイス設定", confidence: 96 }])).toBe("Japanese");
    expect(bestScript([{ script: "Japanese", text: "于它的所有信息", confidence: 93 }])).toBe("Han");
  });

  it("checks the script OSD named, then the scripts it takes for it, then the joined scripts", async () => {
    const readingsOf = (texts: Partial<Record<OcrScript, readonly [string, number]>>) => {
      const asked: Array<OcrScript> = [];
      const readIn = async (script: OcrScript): Promise<ScriptReading | undefined> => {
        asked.push(script);
        const read = texts[script];
        return read === undefined ? undefined : { script, text: read[0], confidence: read[1] };
      };
      return { asked, readIn };
    };
    // A Korean line whose copies OSD named Katakana: Japanese reads no Japanese letters, Hangul settles it.
    const korean = readingsOf({ Japanese: ["도움", 60], Hangul: ["도움 얻기", 96], Han: ["", 0] });
    expect(await scriptOfLabel("Japanese", korean.readIn)).toBe("Hangul");
    expect(korean.asked).toEqual(["Japanese", "Hangul"]);
    // A Hindi word named Cyrillic: Cyrillic fails its check, the joined scripts are read, Devanagari scores best.
    const hindi = readingsOf({ Cyrillic: ["Нав UIT", 45], Latin: ["HG UIT", 41], Devanagari: ["मदद पाना", 95], Bengali: ["মদদ", 30], Gurmukhi: ["", 0] });
    expect(await scriptOfLabel("Cyrillic", hindi.readIn)).toBe("Devanagari");
    expect(hindi.asked).toEqual(["Cyrillic", "Latin", "Devanagari", "Bengali", "Gurmukhi"]);
    // A traditional Chinese line named Cyrillic: no script read so far is trusted, so Han is read too.
    const chinese = readingsOf({ Cyrillic: ["вРАТУЖА", 1], Latin: ["", 0], Han: ["所有的和天资", 36] });
    expect(await scriptOfLabel("Cyrillic", chinese.readIn)).toBe("Han");
    expect(await scriptOfLabel(undefined, readingsOf({}).readIn)).toBeUndefined();
  });

  it("tells a label of one line from a page and from an image too dark to measure", () => {
    expect(holdsOneLine({ skewDegrees: 0, skewGain: 1, lineHeight: 23, lineCount: 1 }, 48)).toBe(true);
    expect(holdsOneLine({ skewDegrees: 0, skewGain: 1, lineHeight: 25, lineCount: 32 }, 3507)).toBe(false);
    expect(holdsOneLine({ skewDegrees: 0, skewGain: 1, lineHeight: 191, lineCount: 1 }, 191)).toBe(false);
  });

  it("tells accented Latin letters from plain ones and from punctuation", () => {
    expect(mayBeAccentedLatin("tiéng", 96)).toBe(true);
    expect(mayBeAccentedLatin("Hello Google — “ok”", 96)).toBe(false);
    expect(mayBeAccentedLatin("PrepiSe verzi souboru", 76)).toBe(true);
    expect(mayBeAccentedLatin("", 0)).toBe(false);
    // A table's worth of words is not a label, however unsure English is of its small type.
    expect(mayBeAccentedLatin("Date Num Description Deposit Withdrawal Balance ".repeat(3), 70)).toBe(false);
  });
});

describe("a label read in a script", () => {
  it("reads in the script's languages in turn until one reading is trusted, and keeps the best", async () => {
    // refcard-sr-more-4.png: Ukrainian, the first Cyrillic language, read it at 51; Serbian at 96.
    const readings = {
      ukr: { text: "За|едница і|е увек корисна,", confidence: 51 },
      bul: { text: "За)едница |е увек корисна,", confidence: 69 },
      srp: { text: "Заједница је увек корисна,", confidence: 96 },
      bel: { text: "x", confidence: 1 },
    };
    const asked: Array<string> = [];
    const reading = await readInLanguagesOf("Cyrillic", ["ukr", "bul", "srp", "bel"], async (language) => {
      asked.push(language);
      return readings[language as keyof typeof readings];
    });
    expect(reading).toEqual({ script: "Cyrillic", text: "Заједница је увек корисна,", confidence: 96 });
    expect(asked).toEqual(["ukr", "bul", "srp"]);
    expect(await readInLanguagesOf("Cyrillic", [], async () => readings.srp)).toBeUndefined();
    // Where the first language reads nothing (noise), the others are not asked.
    const noise: Array<string> = [];
    const nothing = await readInLanguagesOf("Cyrillic", ["ukr", "bul", "srp"], async (language) => {
      noise.push(language);
      return { text: " \n", confidence: 0 };
    });
    expect(nothing).toEqual({ script: "Cyrillic", text: " \n", confidence: 0 });
    expect(noise).toEqual(["ukr"]);
  });
});
