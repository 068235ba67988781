import { Context } from "effect";
import type { OcrBlock, OcrLanguage, OcrRequest } from "./ocr-engine.ts";

/**
 * What an OCR adapter provides: its engine's reading of one request, and nothing around it. The
 * service's `OcrEngine` is made from it once, in composition (src/queued-ocr-engine.ts), the same
 * for every engine: the refusal of a language not listed here, the line of waiting requests with
 * accounts taking turns, the deadline, the port's errors, and the format asked for (json, hOCR,
 * TSV and the searchable PDF written from the reading's blocks by one writer for all engines). So
 * an adapter keeps the rules of `OcrEngineShape` that are about what it reads, and these:
 * - `recognizeOnce` is called at most `workers` times at once, only with a language of
 *   `languages` (or "auto").
 * - When `signal` fires (the deadline passed, or the caller left) the reading stops: its worker
 *   is stopped or abandoned, the promise rejects soon after, and the engine reads the next request.
 * - Bytes that do not decode reject with the port's `InvalidImage`; any other rejection is
 *   reported as `DependencyUnavailable` naming `dependency`.
 * - The reading carries `blocks` whenever the request's format is not text (json, hocr, tsv,
 *   pdf); without them the request fails.
 */
export interface OcrReading {
  /** As `OcrResult`'s: the text (lines separated by "\n"), the languages used, the mean word confidence. */
  readonly text: string;
  readonly language: string;
  readonly confidence: number;
  /** The image's size in the client's frame (after EXIF orientation): the frame of every box. */
  readonly page: { readonly width: number; readonly height: number };
  /** Blocks → lines → words in the client's frame, each with its language where the engine knows it. */
  readonly blocks?: ReadonlyArray<OcrBlock>;
}

export interface OcrRecognizerShape {
  /** The engine's name in DependencyUnavailable ("tesseract"). */
  readonly dependency: string;
  /** The languages this engine reads (besides "auto"). */
  readonly languages: ReadonlyArray<OcrLanguage>;
  /** Readings it runs at once (its workers, started by the adapter). */
  readonly workers: number;
  readonly recognizeOnce: (request: OcrRequest, signal: AbortSignal) => Promise<OcrReading>;
}

export class OcrRecognizer extends Context.Service<OcrRecognizer, OcrRecognizerShape>()("OcrRecognizer") {}
