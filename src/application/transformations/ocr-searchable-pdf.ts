import { Effect } from "effect";
import type { OcrResult } from "../../ports/engines/ocr-engine.ts";
import { PdfJoiner } from "../../ports/engines/pdf-joiner.ts";
import type { OcrReading } from "./ocr-document-result.ts";
import { storeBytes } from "./store-result.ts";

/** Where a searchable PDF waits for its client: data.resultUrl is signed for it. */
export interface StoredPdf {
  readonly resultId: string;
  readonly expiresAt: Date;
}

const pdfOf = (result: OcrResult): ReadonlyArray<Uint8Array> => (result.outputFormat === "pdf" ? [result.pdf] : []);

/**
 * A reading in outputFormat "pdf" becomes one PDF, a page per page read (a document's pages joined
 * in order), stored like every result; the reading itself is answered as text beside its URL.
 * Other formats store nothing.
 */
export const storeSearchablePdf = (reading: OcrReading) =>
  Effect.gen(function* () {
    if (reading.outputFormat !== "pdf") return { stored: undefined, output: {} };
    const pages = "pages" in reading ? reading.pages.flatMap(pdfOf) : pdfOf(reading);
    const bytes = pages.length === 1 ? pages[0]! : yield* (yield* PdfJoiner).join(pages);
    const stored: StoredPdf = yield* storeBytes(bytes, "application/pdf");
    return { stored, output: { resultId: stored.resultId, bytes: String(bytes.byteLength) } };
  });
