import { parentPort } from "node:worker_threads";
import { type BmpHeader, decodeBmpPixels } from "../image/bmp-decoding.ts";
import { decodePnmPixels, type PnmHeader } from "../image/pnm-decoding.ts";
import type { RawRaster } from "../image/raw-raster.ts";
import { inspectPdf, loadPdfium, type RenderedPage, renderPdfPage, UnreadableDocument } from "./pdfium-documents.ts";

/**
 * The thread where client files are unpacked pixel by pixel (BMP, PNM) and PDFs are parsed and
 * rasterised (PDFium in WebAssembly), so that the event loop serving every other request never
 * waits on them. Jobs run one at a time; a job that runs away is ended by terminating the thread
 * (see document-thread-client.ts). Loaded by Node with type stripping (erasable syntax only).
 */
export type DocumentJob =
  | { readonly id: number; readonly kind: "bmp"; readonly bytes: Uint8Array; readonly header: BmpHeader }
  | { readonly id: number; readonly kind: "pnm"; readonly bytes: Uint8Array; readonly header: PnmHeader }
  | { readonly id: number; readonly kind: "pdf-inspect"; readonly bytes: Uint8Array }
  | { readonly id: number; readonly kind: "pdf-render"; readonly bytes: Uint8Array; readonly page: number; readonly dpi: number; readonly maxPixels: number };

export type DocumentJobResult = RawRaster | RenderedPage | { readonly pages: number };

export type DocumentThreadMessage =
  /** The job begins now (PDFium loaded, for a PDF job): its deadline counts from here. */
  | { readonly kind: "started"; readonly id: number }
  | { readonly kind: "done"; readonly id: number; readonly result: DocumentJobResult }
  /** The client's file cannot be used: the message is for the client. */
  | { readonly kind: "refused"; readonly id: number; readonly message: string }
  | { readonly kind: "failed"; readonly id: number; readonly message: string };

const run = async (job: DocumentJob): Promise<DocumentJobResult> => {
  switch (job.kind) {
    case "bmp":
      return decodeBmpPixels(job.bytes, job.header);
    case "pnm":
      return decodePnmPixels(job.bytes, job.header);
    case "pdf-inspect":
      return inspectPdf(job.bytes);
    case "pdf-render":
      return renderPdfPage(job.bytes, job.page, job.dpi, job.maxPixels);
  }
};

const port = parentPort;
if (port !== null) {
  port.on("message", (job: DocumentJob) => {
    const ready = job.kind === "pdf-inspect" || job.kind === "pdf-render" ? loadPdfium().then(() => undefined) : Promise.resolve();
    ready
      .then(() => {
        port.postMessage({ kind: "started", id: job.id } satisfies DocumentThreadMessage);
        return run(job);
      })
      .then(
        (result) => port.postMessage({ kind: "done", id: job.id, result } satisfies DocumentThreadMessage),
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          // Our own decoders throw plain Errors only for malformed pixel data: the client's file too.
          const refused = error instanceof UnreadableDocument || job.kind === "bmp" || job.kind === "pnm";
          port.postMessage({ kind: refused ? "refused" : "failed", id: job.id, message } satisfies DocumentThreadMessage);
        },
      );
  });
}
