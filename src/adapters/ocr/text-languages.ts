import { type OcrBlock, type OcrLanguage, ocrLanguageCatalogue, type OcrScript } from "../../ports/engines/ocr-engine.ts";

/**
 * Which of the languages a page was read with each piece of its text is in, told by the script
 * of its letters: a page read as `hin+eng` has Devanagari lines (hin) and Latin headings (eng).
 * Languages of one script (`eng+deu`) cannot be told apart this way; the first of them is named.
 */
const scriptPattern = (script: OcrScript): RegExp =>
  script === "Japanese" ? /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/gu : new RegExp(`\\p{Script=${script}}`, "gu");

const patterns = new Map<OcrScript, RegExp>();
const patternOf = (script: OcrScript): RegExp => {
  const pattern = patterns.get(script) ?? scriptPattern(script);
  patterns.set(script, pattern);
  return pattern;
};

/** How many of `text`'s characters are written in `script`. */
export const countInScript = (text: string, script: OcrScript): number => text.match(patternOf(script))?.length ?? 0;

/** The language of `languages` whose script has the most characters in `text`; the first on a tie or when none has any. */
export const languageOfText = (text: string, languages: ReadonlyArray<OcrLanguage>): OcrLanguage | undefined => {
  let best: { language: OcrLanguage; count: number } | undefined;
  for (const language of languages) {
    const count = countInScript(text, ocrLanguageCatalogue[language].script);
    if (best === undefined || count > best.count) best = { language, count };
  }
  return best?.language;
};

/** The languages of `languages` that some line of `text` is in, in their order; the first alone when the text has no line. */
export const languagesUsed = (text: string, languages: ReadonlyArray<OcrLanguage>): ReadonlyArray<OcrLanguage> => {
  const found = new Set(
    text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => languageOfText(line, languages)),
  );
  const used = languages.filter((language) => found.has(language));
  return used.length > 0 ? used : languages.slice(0, 1);
};

/** Each block and line marked with the language it is in. */
export const withLanguages = (blocks: ReadonlyArray<OcrBlock>, languages: ReadonlyArray<OcrLanguage>): ReadonlyArray<OcrBlock> => {
  const marked = <T extends { readonly text: string }>(item: T): T => {
    const language = languageOfText(item.text, languages);
    return language === undefined ? item : { ...item, language };
  };
  return blocks.map((block) => marked({ ...block, lines: block.lines.map(marked) }));
};
