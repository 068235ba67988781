import { Context, type Effect } from "effect";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage, UnsupportedLanguage } from "./errors.ts";
import type { ValidatedImage } from "./image.ts";

/**
 * Languages a client may name, as Tesseract language codes (decisions.md), with English names
 * for GET /api/ocr/languages. An engine reads all of them or a subset (`OcrEngineShape.languages`).
 */
export const ocrLanguageNames = {
  eng: "English",
  deu: "German",
  fra: "French",
  spa: "Spanish",
  ita: "Italian",
  por: "Portuguese",
  nld: "Dutch",
  chi_sim: "Chinese (Simplified)",
  jpn: "Japanese",
  ara: "Arabic",
} as const;
export type OcrLanguage = keyof typeof ocrLanguageNames;
export const ocrLanguages = Object.keys(ocrLanguageNames) as ReadonlyArray<OcrLanguage>;

/** Asks the engine to find the script and language itself; the result names the one it used. */
export const ocrAutoLanguage = "auto";
export type OcrLanguageRequest = OcrLanguage | typeof ocrAutoLanguage;

export const ocrOutputFormats = ["text", "json", "hocr", "tsv"] as const;
export type OcrOutputFormat = (typeof ocrOutputFormats)[number];

/** Pixel box in the image as displayed (after EXIF orientation), x1/y1 exclusive. */
export interface OcrBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}
export interface OcrWord {
  readonly text: string;
  /** 0-100. */
  readonly confidence: number;
  readonly bbox: OcrBox;
}
export interface OcrLine extends OcrWord {
  readonly words: ReadonlyArray<OcrWord>;
}
export interface OcrBlock extends OcrWord {
  readonly lines: ReadonlyArray<OcrLine>;
}

/** What each output format adds to the text: its own field, present only for that format. */
export type OcrFormatOutput =
  | { readonly outputFormat: "text" }
  | { readonly outputFormat: "json"; readonly blocks: ReadonlyArray<OcrBlock> }
  | { readonly outputFormat: "hocr"; readonly hocr: string }
  | { readonly outputFormat: "tsv"; readonly tsv: string };

export type OcrResult = {
  /** The recognised text, lines separated by "\n"; "" when the image holds no text. */
  readonly text: string;
  /** The language used: the detected one when "auto" was asked. */
  readonly language: OcrLanguage;
  /** Mean word confidence, 0-100 (0 when there is no text). */
  readonly confidence: number;
} & OcrFormatOutput;

export interface OcrRequest {
  readonly image: ValidatedImage;
  readonly language: OcrLanguageRequest;
  readonly outputFormat: OcrOutputFormat;
}

export interface OcrEngineShape {
  /** The languages this engine reads (besides "auto"); others fail with UnsupportedLanguage. */
  readonly languages: ReadonlyArray<OcrLanguage>;
  readonly recognize: (
    request: OcrRequest,
  ) => Effect.Effect<OcrResult, InvalidImage | UnsupportedLanguage | EngineBusy | EngineTimeout | DependencyUnavailable>;
}

export class OcrEngine extends Context.Service<OcrEngine, OcrEngineShape>()("OcrEngine") {}
