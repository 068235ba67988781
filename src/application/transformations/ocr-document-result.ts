import type { OcrOutputFormat, OcrResult } from "../../ports/engines/ocr-engine.ts";

/** One page of a document as read: its number (from 1) and what the engine read on it, format field included. */
export type OcrPageResult = OcrResult & { readonly page: number };

/**
 * A document's reading (PDF, multi-page TIFF): every page's own result, and over them the text
 * of all pages (joined by a blank line), the language most pages were read in, and the mean
 * confidence of the pages weighted by their characters (pages without text weigh nothing).
 */
export interface OcrDocumentResult {
  readonly text: string;
  readonly language: string;
  readonly confidence: number;
  readonly outputFormat: OcrOutputFormat;
  readonly pages: ReadonlyArray<OcrPageResult>;
}

/** What POST /ocr read: one image, or a document's pages. */
export type OcrReading = OcrResult | OcrDocumentResult;

export const pageSeparator = "\n\n";

export const documentResult = (outputFormat: OcrOutputFormat, pages: ReadonlyArray<OcrPageResult>): OcrDocumentResult => {
  const votes = new Map<string, number>();
  for (const page of pages) votes.set(page.language, (votes.get(page.language) ?? 0) + 1);
  // Ties go to the language met first.
  const language = [...votes.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
  const characters = pages.reduce((sum, page) => sum + page.text.length, 0);
  const confidence = characters === 0 ? 0 : pages.reduce((sum, page) => sum + page.confidence * page.text.length, 0) / characters;
  return {
    text: pages
      .map((page) => page.text)
      .filter((text) => text !== "")
      .join(pageSeparator),
    language,
    confidence,
    outputFormat,
    pages,
  };
};
