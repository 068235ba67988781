import { Context, type Effect } from "effect";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage, UnsupportedLanguage } from "../errors.ts";
import type { ValidatedImage } from "./image.ts";
import { type OcrLanguage, ocrLanguageCatalogue } from "./ocr-languages.ts";

export { type OcrLanguage, ocrLanguageCatalogue, ocrLanguages, type OcrScript } from "./ocr-languages.ts";

/** Asks the engine to find the script and language itself; the result names the one it used. */
export const ocrAutoLanguage = "auto";
/** "auto", or one language or several read together (`eng+deu`), at most this many. */
export type OcrLanguageRequest = ReadonlyArray<OcrLanguage> | typeof ocrAutoLanguage;
export const maxCombinedOcrLanguages = 3;
/** The form of a language request, for documents; the codes themselves are checked by `parseOcrLanguageRequest`. */
export const ocrLanguageRequestPattern = /^[a-z_]{3,8}(\+[a-z_]{3,8}){0,2}$/u;

/** Reads `eng`, `eng+deu` or `auto`; undefined for an unknown code, a repeat, or too many. */
export const parseOcrLanguageRequest = (text: string): OcrLanguageRequest | undefined => {
  if (text === ocrAutoLanguage) return ocrAutoLanguage;
  const codes = text.split("+", maxCombinedOcrLanguages + 1);
  if (codes.length > maxCombinedOcrLanguages || new Set(codes).size !== codes.length) return undefined;
  return codes.every((code): code is OcrLanguage => Object.hasOwn(ocrLanguageCatalogue, code)) ? codes : undefined;
};

/** `pdf`: a searchable PDF, the page with its text invisible on top. Every engine gives every format. */
export const ocrOutputFormats = ["text", "json", "hocr", "tsv", "pdf"] as const;
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
  /** The language of the result's that this line is in (by its script), once the engine has told. */
  readonly language?: string;
}
export interface OcrBlock extends OcrWord {
  readonly lines: ReadonlyArray<OcrLine>;
  /** The language most of the block is in. */
  readonly language?: string;
}

/** What each output format adds to the text: its own field, present only for that format. */
export type OcrFormatOutput =
  | { readonly outputFormat: "text" }
  | { readonly outputFormat: "json"; readonly blocks: ReadonlyArray<OcrBlock> }
  | { readonly outputFormat: "hocr"; readonly hocr: string }
  | { readonly outputFormat: "tsv"; readonly tsv: string }
  /** One page of PDF: the image as read, at its size in print, with the text where it stands, invisible (render mode 3). */
  | { readonly outputFormat: "pdf"; readonly pdf: Uint8Array };

export type OcrResult = {
  /** The recognised text, lines separated by "\n"; "" when the image holds no text. */
  readonly text: string;
  /**
   * The language used (`eng`, or `eng+deu` when several were read together). With "auto", every
   * language found on the page: `hin+eng` for Hindi with English headings, `chi_tra` alone when no
   * line is Latin.
   */
  readonly language: string;
  /** Mean word confidence, 0-100 (0 when there is no text). */
  readonly confidence: number;
} & OcrFormatOutput;

export interface OcrRequest {
  readonly image: ValidatedImage;
  readonly language: OcrLanguageRequest;
  readonly outputFormat: OcrOutputFormat;
}

/**
 * An OCR engine. Every adapter keeps these rules (test/contract/support/ocr-engine-contract.ts checks
 * them; the API's results and documents depend on each):
 * - `languages` holds "eng" and only codes of `ocrLanguages`; asked for another, `recognize` fails
 *   with UnsupportedLanguage naming it. With "auto" the engine finds the language itself and names
 *   it in `language` (each clean page of a language it offers for "auto" is named so).
 * - json: blocks → lines → words, each box in the client's frame (after EXIF orientation, mapped
 *   back when the engine turned the page), x0 < x1 and y0 < y1 within the image; confidences 0–100.
 * - hocr: Tesseract's hOCR, a `class='ocr_page'` element and one `<span class='ocrx_word'
 *   id='word_1_<n>' title='bbox x0 y0 x1 y1; x_wconf <conf>'>` per word of `text`, n from 1.
 * - tsv: Tesseract's 12 columns (`level page_num block_num par_num line_num word_num left top width
 *   height conf text`), a header row, then level-5 rows holding the words of `text` in order with
 *   conf ≥ 0. Composition writes json, hOCR and TSV for every engine from its reading's blocks
 *   (adapters/ocr/ocr-layout-formats.ts, ports/engines/ocr-recognizer.ts).
 * - pdf: one page, its size in print at 300 dpi when the image states none, its invisible text
 *   layer reading as `text`.
 * - An image without text gives `text` "", `confidence` 0 (and no blocks), whatever the language.
 * - Bytes that do not decode fail with InvalidImage; an engine process that fails, with
 *   DependencyUnavailable.
 * - Capacity: at most `parallelism` recognitions at once, a bounded line behind them; beyond it
 *   EngineBusy, past the deadline EngineTimeout (the reading in progress is stopped, and the engine
 *   goes on reading the next request).
 * An adapter does not implement this shape itself: it provides an `OcrRecognizer` (its engine's
 * single reading, ocr-recognizer.ts), and composition makes the OcrEngine from it with the
 * capacity, the language and format refusals and the error mapping, the same for every engine.
 */
export interface OcrEngineShape {
  /** The languages this engine reads (besides "auto"); others fail with UnsupportedLanguage. */
  readonly languages: ReadonlyArray<OcrLanguage>;
  /**
   * Recognitions this engine runs at once (its workers): how many pages of one document are worth
   * handing it together. More wait in its line, where other accounts' requests take turns with them.
   */
  readonly parallelism: number;
  readonly recognize: (
    request: OcrRequest,
  ) => Effect.Effect<OcrResult, InvalidImage | UnsupportedLanguage | EngineBusy | EngineTimeout | DependencyUnavailable>;
}

export class OcrEngine extends Context.Service<OcrEngine, OcrEngineShape>()("OcrEngine") {}
