import sharp, { type OutputInfo } from "sharp";
import type { OcrLanguage, OcrScript } from "../../ports/engines/ocr-engine.ts";
import { countInScript } from "./text-languages.ts";

/**
 * Finding the script of a label: one word or one line, too little text for Tesseract's OSD,
 * which names no script below a few dozen characters ("Too few characters").
 *
 * First the text is repeated in a grid and OSD asked again: OSD classifies each character and
 * votes, so copies of a word give it the votes one copy lacks (an Arabic or Latin word is named
 * this way). Scripts whose words are one joined shape (Devanagari, Bengali, Gurmukhi hang their
 * letters from one headline) stay too few characters however often repeated: those, with Latin,
 * are then read once each and the reading whose letters are most its own script's, weighted by
 * its confidence, names the script.
 */

/** Copies in the grid, and the largest grid (px on its longer side) worth making: a label, not a page. */
const gridColumns = 3;
const gridRows = 6;
const maximumGridSide = 4000;
/** White margin (px) around each copy, so that copies do not touch. */
const margin = 16;

/** The image's text, trimmed of its background, repeated `gridColumns` × `gridRows`; undefined for a blank image or one too large to be a label. */
export const repeatedForOsd = async (png: Buffer): Promise<Buffer | undefined> => {
  let copy: { data: Buffer; info: OutputInfo };
  try {
    copy = await sharp(png)
      .trim({ threshold: 40 })
      .extend({ top: margin, bottom: margin, left: margin, right: margin, background: "#ffffff" })
      .flatten({ background: "#ffffff" })
      .png()
      .toBuffer({ resolveWithObject: true });
  } catch {
    return undefined;
  }
  const { width, height } = copy.info;
  if (Math.max(width * gridColumns, height * gridRows) > maximumGridSide) return undefined;
  const tiles = Array.from({ length: gridColumns * gridRows }, (_, i) => ({
    input: copy.data,
    left: (i % gridColumns) * width,
    top: Math.floor(i / gridColumns) * height,
  }));
  return sharp({ create: { width: width * gridColumns, height: height * gridRows, channels: 3, background: "#ffffff" } })
    .composite(tiles)
    .png()
    .toBuffer();
};

/** The scripts read once each when OSD cannot name one even in the grid. */
export const joinedScripts: ReadonlyArray<OcrScript> = ["Latin", "Devanagari", "Bengali", "Gurmukhi"];

export interface ScriptReading {
  readonly script: OcrScript;
  readonly text: string;
  /** 0-100. */
  readonly confidence: number;
}

/**
 * How much a reading looks like its script: its confidence times the share of its letters written
 * in that script. Digits do not count either way: ASCII digits are every script's (counted, they
 * sank the English reading of a bank statement's table to 34 and sent it through four more
 * scripts' readings), and a model reading another script's text makes up its own digits (Bengali
 * read a Vietnamese line as ০৮৪ ০৪০).
 */
export const scriptScore = (reading: ScriptReading): number => {
  const letters = reading.text.match(/[\p{L}\p{M}]/gu)?.length ?? 0;
  if (letters === 0) return 0;
  return reading.confidence * Math.min(1, countInScript(reading.text.replace(/\p{N}/gu, ""), reading.script) / letters);
};

/** A reading in the script OSD named that scores this much settles it; below, the joined scripts are read too. */
export const trustedScriptScore = 70;

/** Kana tell Japanese from Chinese: a Japanese reading with none is Han, which Chinese and Japanese are both read in. */
const settled = (reading: ScriptReading): OcrScript =>
  reading.script === "Japanese" && !/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(reading.text) ? "Han" : reading.script;

/** The script of the reading that scores best; undefined when none read anything. */
export const bestScript = (readings: ReadonlyArray<ScriptReading>): OcrScript | undefined => {
  let best: { reading: ScriptReading; score: number } | undefined;
  for (const reading of readings) {
    const score = scriptScore(reading);
    if (score > 0 && (best === undefined || score > best.score)) best = { reading, score };
  }
  return best === undefined ? undefined : settled(best.reading);
};

/**
 * A label read in a script whose usual languages (`candidates`, most likely first) read it one at a
 * time until one reading is trusted; the best-scoring kept, undefined where none is offered. The
 * first alone does not do: Ukrainian read Serbian and Bulgarian lines at 0-51 where Serbian or
 * Bulgarian read them at 92-96, and the untrusted Cyrillic reading lost the label to a garbled
 * Latin or Gurmukhi one.
 */
export const readInLanguagesOf = async (
  script: OcrScript,
  candidates: ReadonlyArray<OcrLanguage>,
  readWith: (language: OcrLanguage) => Promise<{ readonly text: string; readonly confidence: number }>,
): Promise<ScriptReading | undefined> => {
  let best: ScriptReading | undefined;
  for (const language of candidates) {
    const { text, confidence } = await readWith(language);
    const reading = { script, text, confidence };
    if (best === undefined || scriptScore(reading) > scriptScore(best)) best = reading;
    // Nothing read is no script's text (noise): the other languages find nothing either, and cost a read each.
    if (scriptScore(best) >= trustedScriptScore || text.trim() === "") break;
  }
  return best;
};

/** Scripts OSD takes for one another in a label's copies (a Korean line was named Katakana). */
const confusedWith: Partial<Record<OcrScript, ReadonlyArray<OcrScript>>> = {
  Japanese: ["Hangul", "Han"],
  Hangul: ["Japanese", "Han"],
  Han: ["Japanese", "Hangul"],
};

/**
 * The script of a label, from what OSD named in its copies (or nothing) and `readIn`, which reads
 * the label in a script (undefined where no language of it is offered). What OSD names is
 * checked by one reading, then the scripts it takes that one for: copies of a joined word can look
 * like another script to it (a Hindi label was named Cyrillic, a Korean one Katakana). Where none
 * of those scores `trustedScriptScore`, the joined scripts are read too (and Han, if none of them
 * does either) and the best score names it.
 */
export const scriptOfLabel = async (
  named: OcrScript | undefined,
  readIn: (script: OcrScript) => Promise<ScriptReading | undefined>,
): Promise<OcrScript | undefined> => {
  const readings: Array<ScriptReading> = [];
  const tried = new Set<OcrScript>();
  const tryScript = async (script: OcrScript) => {
    if (tried.has(script)) return undefined;
    tried.add(script);
    const reading = await readIn(script);
    if (reading !== undefined) readings.push(reading);
    return reading;
  };
  for (const script of named === undefined ? [] : [named, ...(confusedWith[named] ?? [])]) {
    const reading = await tryScript(script);
    if (reading !== undefined && scriptScore(reading) >= trustedScriptScore) return settled(reading);
  }
  for (const script of joinedScripts) await tryScript(script);
  // OSD can name a script far from the label's (a traditional Chinese line's copies: Cyrillic); where
  // nothing read so far is trusted, Han, the script of the most characters, is read too.
  if (!readings.some((reading) => scriptScore(reading) >= trustedScriptScore)) await tryScript("Han");
  return bestScript(readings);
};

/**
 * A Latin label too short for the stopword vote (latin-language-identification.ts) that English
 * reads with accented letters, or less surely than `sureEnglish` (it reads "ç" as "g", "ř" as "r"
 * and is unsure of the word), is read again in these languages, which write accents English has
 * not, and the most confident reading kept: "tiếng" reads "tiéng" in English (73), "tiếng" in
 * Vietnamese (96), "tiéng" in French (92); "Přepíše verzi souboru" reads "PrepiSe" in English (76),
 * right in Czech (94), "Prepise" in Romanian (92); while "Hello Google" keeps English (96 against 94).
 */
export const accentedLatinLanguages: ReadonlyArray<OcrLanguage> = ["vie", "fra", "deu", "spa", "por", "pol", "tur", "ces"];
const sureEnglish = 90;
/**
 * More words than a label holds: an image OSD names no script for can be a screenshot of a table
 * in small type (GnuCash's bank statement, 510×244, some 60 words), which English reads less
 * surely than 90 for its type, not its accents; read again in eight languages, it took 20-36 s
 * and came out named French.
 */
const labelWords = 12;

export const mayBeAccentedLatin = (text: string, confidence: number): boolean => {
  const words = text.match(/\S+/g)?.length ?? 0;
  return words > 0 && words <= labelWords && (confidence < sureEnglish || /[^\p{ASCII}](?<=\p{L})/u.test(text));
};
