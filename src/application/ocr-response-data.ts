import type { OcrResult } from "../ports/ocr-engine.ts";

/**
 * The `data` object of a successful POST /ocr (decisions.md): always text, language (the one
 * used, detected when "auto" was asked), confidence 0-100, outputFormat and processingTime in
 * milliseconds, plus the format's own field (`blocks` for json, `hocr`, `tsv`; none for text).
 */
export type OcrResponseData = OcrResult & { readonly processingTime: number };

export const ocrResponseData = (result: OcrResult, processingTimeMs: number): OcrResponseData => ({
  ...result,
  confidence: Math.round(result.confidence * 100) / 100,
  processingTime: Math.round(processingTimeMs),
});
