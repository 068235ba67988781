import type { OcrResult } from "../ports/ocr-engine.ts";
import type { OcrDocumentResult, OcrPageResult, OcrReading } from "./ocr-document-result.ts";

/**
 * The `data` object of a successful POST /ocr (docs/api-decisions.md): always text, language (the one
 * used, detected when "auto" was asked), confidence 0-100, outputFormat and processingTime in
 * milliseconds, plus the format's own field (`blocks` for json, `hocr`, `tsv`; none for text).
 * A document's data holds the same over all its pages and, in `pages`, each page's own result
 * with its format field.
 */
export type OcrResponseData = (OcrResult | (Omit<OcrDocumentResult, "pages"> & { readonly pages: ReadonlyArray<OcrPageResult> })) & {
  readonly processingTime: number;
};

const rounded = (confidence: number) => Math.round(confidence * 100) / 100;

export const ocrResponseData = (reading: OcrReading, processingTimeMs: number): OcrResponseData => ({
  ...reading,
  ...("pages" in reading ? { pages: reading.pages.map((page) => ({ ...page, confidence: rounded(page.confidence) })) } : {}),
  confidence: rounded(reading.confidence),
  processingTime: Math.round(processingTimeMs),
});
