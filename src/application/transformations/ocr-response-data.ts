import type { OcrResult } from "../../ports/engines/ocr-engine.ts";
import type { OcrDocumentResult, OcrPageResult, OcrReading } from "./ocr-document-result.ts";
import type { StoredPdf } from "./ocr-searchable-pdf.ts";

/**
 * The `data` object of a successful POST /ocr (docs/api-decisions.md): always text, language (the one
 * used, detected when "auto" was asked), confidence 0-100, outputFormat and processingTime in
 * milliseconds, plus the format's own field (`blocks` for json, `hocr`, `tsv`; none for text).
 * A document's data holds the same over all its pages and, in `pages`, each page's own result
 * with its format field. A searchable PDF (pdf) is not in the data: `stored` says where it waits,
 * and the HTTP adapter answers its signed URL.
 */
type WithoutPdf<T> = T extends unknown ? Omit<T, "pdf"> : never;
export type OcrResponseData = (WithoutPdf<OcrResult> | (Omit<OcrDocumentResult, "pages"> & { readonly pages: ReadonlyArray<WithoutPdf<OcrPageResult>> })) & {
  readonly processingTime: number;
  readonly stored: StoredPdf | undefined;
};

const rounded = (confidence: number) => Math.round(confidence * 100) / 100;

const withoutPdf = <T extends OcrResult>(result: T): WithoutPdf<T> => {
  const { pdf: _bytes, ...rest } = result as T & { readonly pdf?: Uint8Array };
  return rest as WithoutPdf<T>;
};

export const ocrResponseData = (reading: OcrReading & { readonly stored: StoredPdf | undefined }, processingTimeMs: number): OcrResponseData => ({
  ...("pages" in reading
    ? { ...reading, pages: reading.pages.map((page) => ({ ...withoutPdf(page), confidence: rounded(page.confidence) })) }
    : withoutPdf(reading)),
  confidence: rounded(reading.confidence),
  processingTime: Math.round(processingTimeMs),
});
