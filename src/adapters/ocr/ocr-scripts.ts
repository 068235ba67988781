import type { OcrLanguage } from "../../ports/ocr-engine.ts";

/**
 * Writing systems of the languages offered. "auto" first settles the script (which model can
 * read the page at all), then, within Latin, the language.
 */
export type OcrScript = "Latin" | "Han" | "Japanese" | "Arabic";

export const scriptOfLanguage: Record<OcrLanguage, OcrScript> = {
  eng: "Latin",
  deu: "Latin",
  fra: "Latin",
  spa: "Latin",
  ita: "Latin",
  por: "Latin",
  nld: "Latin",
  chi_sim: "Han",
  jpn: "Japanese",
  ara: "Arabic",
};

/** Tesseract OSD names a script per page; kana (and Japanese Han) mean Japanese, Fraktur is Latin. */
export const scriptOfOsdName = (name: string | null): OcrScript | undefined => {
  switch (name) {
    case "Latin":
    case "Fraktur":
      return "Latin";
    case "Han":
      return "Han";
    case "Japanese":
    case "Hiragana":
    case "Katakana":
      return "Japanese";
    case "Arabic":
      return "Arabic";
    default:
      return undefined;
  }
};
