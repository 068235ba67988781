import { type OcrLanguage, ocrLanguageCatalogue, type OcrScript } from "../../ports/engines/ocr-languages.ts";

/**
 * What "auto" does with the script Tesseract's OSD names: which offered languages to read the
 * page with. A script several languages share is read with each of its usual ones and the best
 * reading kept (Han: simplified or traditional Chinese, or Japanese); Latin is read in English
 * and then identified from its words, since dozens of languages share it.
 */
const candidatesByScript: Partial<Record<OcrScript, ReadonlyArray<OcrLanguage>>> = {
  Latin: ["eng"],
  Han: ["chi_sim", "chi_tra", "jpn"],
  Japanese: ["jpn", "chi_tra"],
  Cyrillic: ["ukr", "bul", "srp", "bel"],
  Devanagari: ["hin", "mar", "nep"],
  Arabic: ["ara", "fas", "urd"],
  Bengali: ["ben", "asm"],
  Hebrew: ["heb", "yid"],
};

export const scriptOfLanguage = (language: OcrLanguage): OcrScript => ocrLanguageCatalogue[language].script;

/** The offered languages "auto" reads a page of `script` with, most likely first. */
export const autoCandidates = (script: OcrScript, offered: ReadonlyArray<OcrLanguage>): ReadonlyArray<OcrLanguage> => {
  const preferred = candidatesByScript[script];
  const fallback = offered.filter((language) => scriptOfLanguage(language) === script).slice(0, 1);
  const candidates = preferred?.filter((language) => offered.includes(language)) ?? [];
  return candidates.length > 0 ? candidates : fallback;
};

/**
 * Letters that tell apart two languages of one script where confidence does not: Assamese writes
 * ra as ৰ where Bengali writes র. The Assamese model reads a Bengali line with as many র as ৰ (and
 * more surely than the Bengali model: 66 against 44 on an italic line), where an Assamese text
 * has none: a reading whose own-letter share falls below `ownShare` saw the sibling's letters.
 */
const orthography: Partial<Record<OcrLanguage, { readonly own: RegExp; readonly sibling: RegExp }>> = {
  asm: { own: /\u09F0/gu, sibling: /\u09B0/gu },
};
const ownShare = 0.8;

/** Whether `text`, read with `language`'s model, is written the way that language writes (true where nothing tells). */
export const writtenAsLanguage = (language: OcrLanguage, text: string): boolean => {
  const letters = orthography[language];
  if (letters === undefined) return true;
  const own = text.match(letters.own)?.length ?? 0;
  const sibling = text.match(letters.sibling)?.length ?? 0;
  return own + sibling === 0 || own / (own + sibling) >= ownShare;
};

/**
 * Letters that, among the languages `auto` reads a script with, only one writes: Serbian's ђ ј љ њ ћ
 * џ, Ukrainian's ї є ґ, Belarusian's ў, Bulgarian's ъ. Bulgarian reads a Serbian line more surely
 * than Serbian does (86 against 74) by making its ј a ")" and its ћ a "й": a reading that shows its
 * own language's letters, at least `ownLettersConfidence` sure, beats one that shows none. (Serbian
 * made up a њ and a ђ in a Bulgarian word it read at 25.)
 */
const ownLetters: Partial<Record<OcrLanguage, RegExp>> = {
  srp: /[ђјљњћџЂЈЉЊЋЏ]/u,
  ukr: /[їєґЇЄҐ]/u,
  bel: /[ўЎ]/u,
  bul: /[ъЪ]/u,
};
const ownLettersConfidence = 70;

const showsOwnLetters = (reading: ScriptLanguageReading): boolean =>
  reading.confidence >= ownLettersConfidence && (ownLetters[reading.language]?.test(reading.text) ?? false);

/** One language's reading of text in its script: what `preferredOfScript` compares. */
export interface ScriptLanguageReading {
  readonly language: OcrLanguage;
  readonly text: string;
  readonly confidence: number;
}

/**
 * Of two readings in languages of one script, one written as its language writes beats one that is
 * not; then one that shows its language's own letters beats one that shows none; else the more
 * confident, the first on a tie.
 */
export const preferredOfScript = <R extends ScriptLanguageReading>(a: R, b: R): R => {
  const [aFits, bFits] = [writtenAsLanguage(a.language, a.text), writtenAsLanguage(b.language, b.text)];
  if (aFits !== bFits) return aFits ? a : b;
  const [aOwn, bOwn] = [showsOwnLetters(a), showsOwnLetters(b)];
  if (aOwn !== bOwn) return aOwn ? a : b;
  return b.confidence > a.confidence ? b : a;
};

/** Tesseract OSD names a script per page; kana mean Japanese, Fraktur is Latin, vertical Han is Han. */
export const scriptOfOsdName = (name: string | null): OcrScript | undefined => {
  switch (name) {
    case null:
      return undefined;
    case "Fraktur":
    case "Vietnamese":
      return "Latin";
    case "Han_vert":
      return "Han";
    case "Hiragana":
    case "Katakana":
    case "Japanese_vert":
      return "Japanese";
    case "Hangul_vert":
      return "Hangul";
    default:
      return osdScripts.has(name) ? (name as OcrScript) : undefined;
  }
};

const osdScripts: ReadonlySet<string> = new Set(Object.values(ocrLanguageCatalogue).map((entry) => entry.script));
