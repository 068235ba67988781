import { parentPort, workerData } from "node:worker_threads";
import { type BmpHeader, decodeBmpPixels } from "../image/bmp-decoding.ts";
import { decodePnmPixels, type PnmHeader } from "../image/pnm-decoding.ts";
import type { Raster } from "../image/raster.ts";
import { type InspectedPdf, inspectPdf, loadPdfium, pdfiumCondition, type RenderedPage, renderPdfPage, UnreadableDocument } from "./pdfium-documents.ts";

/**
 * The thread where client files are unpacked pixel by pixel (BMP, PNM) and PDFs are parsed and
 * rasterised (PDFium in WebAssembly), so that the event loop serving every other request never
 * waits on them. Jobs run one at a time; a job that runs away is ended by terminating the thread
 * (see document-thread-client.ts). PDFium's memory is capped (`DocumentThreadSetup`); a job that
 * meets the cap, or after which PDFium has aborted or trapped, is reported "poisoned" and this
 * thread answers no other job: the client discards it and the next job gets a fresh one. Loaded
 * by Node with type stripping (erasable syntax only).
 */
export interface DocumentThreadSetup {
  /** The most memory PDFium may grow to. */
  readonly pdfiumMemoryBytes: number;
}

export type DocumentJob =
  | { readonly id: number; readonly kind: "bmp"; readonly bytes: Uint8Array; readonly header: BmpHeader }
  | { readonly id: number; readonly kind: "pnm"; readonly bytes: Uint8Array; readonly header: PnmHeader }
  | { readonly id: number; readonly kind: "pdf-inspect"; readonly bytes: Uint8Array }
  | { readonly id: number; readonly kind: "pdf-render"; readonly bytes: Uint8Array; readonly page: number; readonly dpi: number; readonly maxPixels: number };

export type DocumentJobResult = Raster<1 | 3> | RenderedPage | InspectedPdf;

export type DocumentThreadMessage =
  /** The job begins now (PDFium loaded, for a PDF job): its deadline counts from here. */
  | { readonly kind: "started"; readonly id: number }
  | { readonly kind: "done"; readonly id: number; readonly result: DocumentJobResult }
  /** The client's file cannot be used: the message is for the client. */
  | { readonly kind: "refused"; readonly id: number; readonly message: string }
  | { readonly kind: "failed"; readonly id: number; readonly message: string }
  /** PDFium is unfit for another job: it met its memory cap (`outOfMemory`), or aborted or trapped. */
  | { readonly kind: "poisoned"; readonly id: number; readonly outOfMemory: boolean; readonly message: string };

const setup = workerData as DocumentThreadSetup;
const pdfium = () => loadPdfium(setup.pdfiumMemoryBytes);

const run = async (job: DocumentJob): Promise<DocumentJobResult> => {
  switch (job.kind) {
    case "bmp":
      return decodeBmpPixels(job.bytes, job.header);
    case "pnm":
      return decodePnmPixels(job.bytes, job.header);
    case "pdf-inspect":
      return inspectPdf(await pdfium(), job.bytes);
    case "pdf-render":
      return renderPdfPage(await pdfium(), job.bytes, job.page, job.dpi, job.maxPixels);
  }
};

/** What to answer for a job that ended (`result` or `error`), PDFium's condition first. */
const answer = (job: DocumentJob, outcome: { readonly result: DocumentJobResult } | { readonly error: unknown }): DocumentThreadMessage => {
  const { memoryRefused, broken } = pdfiumCondition();
  const error = "error" in outcome ? outcome.error : undefined;
  const message = error instanceof Error ? error.message : String(error);
  // A WebAssembly trap (WebAssembly.RuntimeError) leaves the module's heap in an unknown state.
  const trapped = error instanceof Error && error.name === "RuntimeError";
  if (memoryRefused || broken || trapped) return { kind: "poisoned", id: job.id, outOfMemory: memoryRefused, message };
  if ("result" in outcome) return { kind: "done", id: job.id, result: outcome.result };
  // Our own decoders throw plain Errors only for malformed pixel data: the client's file too.
  const refused = error instanceof UnreadableDocument || job.kind === "bmp" || job.kind === "pnm";
  return { kind: refused ? "refused" : "failed", id: job.id, message };
};

/**
 * A page's pixels are handed over, not copied (8.7 MB for an A4 page at 300 dpi): nothing here
 * reads them again. Only a buffer they fill alone: a shared one, or one they are a view into, is copied.
 */
const transferable = (message: DocumentThreadMessage): Array<ArrayBuffer> => {
  if (message.kind !== "done" || !("data" in message.result)) return [];
  const { buffer, byteOffset, byteLength } = message.result.data;
  return buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength ? [buffer] : [];
};

const port = parentPort;
if (port !== null) {
  let poisoned = false;
  port.on("message", (job: DocumentJob) => {
    if (poisoned)
      return port.postMessage({ kind: "poisoned", id: job.id, outOfMemory: false, message: "the document thread is poisoned" } satisfies DocumentThreadMessage);
    const ready = job.kind === "pdf-inspect" || job.kind === "pdf-render" ? pdfium().then(() => undefined) : Promise.resolve();
    ready
      .then(() => {
        port.postMessage({ kind: "started", id: job.id } satisfies DocumentThreadMessage);
        return run(job);
      })
      .then(
        (result) => answer(job, { result }),
        (error: unknown) => answer(job, { error }),
      )
      .then((message) => {
        poisoned = message.kind === "poisoned";
        port.postMessage(message, transferable(message));
      });
  });
}
