import type { TesseractModel } from "./tesseract-language-data.ts";

/**
 * What the recognition (tesseract-recognition.ts) asks of a Tesseract: the part of a tesseract.js
 * worker's interface it uses, which the native CLI (tesseract-cli-readers.ts) gives too. Field
 * names are tesseract.js's, so that its worker is a reader as it is.
 */
export interface TesseractBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}
export interface TesseractWord {
  readonly text: string;
  /** 0-100. */
  readonly confidence: number;
  readonly bbox: TesseractBox;
}
export interface TesseractLine extends TesseractWord {
  readonly words: ReadonlyArray<TesseractWord>;
}
export interface TesseractBlock extends TesseractWord {
  readonly paragraphs: ReadonlyArray<{ readonly lines: ReadonlyArray<TesseractLine> }>;
}
export interface TesseractPage {
  readonly text: string;
  /** Mean word confidence, 0-100. */
  readonly confidence: number;
  /** Present when the layout was asked for. */
  readonly blocks: ReadonlyArray<TesseractBlock> | null;
}
/** Tesseract's orientation and script detection (OSD); every field null when it found too little text. */
export interface TesseractOrientation {
  readonly script: string | null;
  readonly script_confidence: number | null;
  /** The turn, clockwise, that puts the page upright. */
  readonly orientation_degrees: number | null;
  readonly orientation_confidence: number | null;
}
export interface TesseractReadOptions {
  /** The image's resolution; without it Tesseract estimates one from the text's size. */
  readonly user_defined_dpi?: string;
  /**
   * Never set (the searchable PDF is written from the blocks, ocr-layout-formats.ts): one of
   * tesseract.js's own recognize options, declared so that its worker type takes these options
   * (tesseract.js passes the others on as Tesseract parameters, but its typings name only its own).
   */
  readonly pdfTitle?: string;
}
export interface TesseractOutput {
  readonly text?: boolean;
  readonly blocks?: boolean;
}

export interface TesseractReader {
  recognize(image: Buffer, options?: TesseractReadOptions, output?: TesseractOutput): Promise<{ readonly data: TesseractPage }>;
  detect(image: Buffer): Promise<{ readonly data: TesseractOrientation }>;
  /** Set until set otherwise, for this reader's later calls. */
  setParameters(parameters: Readonly<Record<string, string>>): Promise<unknown>;
}

/** Readers of each model, lent one call at a time; `signal` stops the reader's work when it fires. */
export interface TesseractReaders {
  /** The encoding its readers take images in: PNG (tesseract.js) or binary PNM (the CLI reads it fastest). */
  readonly imageFormat: "png" | "pnm";
  withWorker<A>(model: TesseractModel, signal: AbortSignal, use: (reader: TesseractReader) => Promise<A>): Promise<A>;
  terminate(): Promise<void>;
}
