import { Context, type Effect } from "effect";
import type { DependencyUnavailable } from "../errors.ts";

/**
 * Puts the one-page searchable PDFs an OCR engine wrote (outputFormat "pdf") together into one
 * document, pages in the order given, each unchanged: a scanned document comes back as one PDF.
 */
export interface PdfJoinerShape {
  readonly join: (pages: ReadonlyArray<Uint8Array>) => Effect.Effect<Uint8Array, DependencyUnavailable>;
}

export class PdfJoiner extends Context.Service<PdfJoiner, PdfJoinerShape>()("PdfJoiner") {}
