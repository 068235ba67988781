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

/** `pdf`: a searchable PDF, the page as read with its text invisible on top (engines that list it in `outputFormats`). */
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

export interface OcrEngineShape {
  /** The languages this engine reads (besides "auto"); others fail with UnsupportedLanguage. */
  readonly languages: ReadonlyArray<OcrLanguage>;
  /** The output formats this engine writes; callers ask only for these (POST /ocr refuses others with 400). */
  readonly outputFormats: ReadonlyArray<OcrOutputFormat>;
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
