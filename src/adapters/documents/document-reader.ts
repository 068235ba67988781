import { Effect, Layer } from "effect";
import sharp from "sharp";
import { DocumentReader, type DocumentReaderShape, type OpenedDocument, type PageFailure } from "../../ports/engines/document-reader.ts";
import type { ValidatedImage } from "../../ports/engines/image.ts";
import { ImageInspector, type ImageInspectorShape } from "../../ports/engines/image-inspector.ts";
import { DependencyUnavailable, EngineTimeout, ImageTooLarge, InvalidImage } from "../../ports/errors.ts";
import { makeEngineCapacity } from "../engine-capacity.ts";
import { looksLikeBmp, readBmpHeader } from "../image/bmp-decoding.ts";
import { looksLikePnm, readPnmHeader } from "../image/pnm-decoding.ts";
import type { HeaderReading, Raster } from "../image/raster.ts";
import { sniffImageFormat } from "../image/sniff-image-format.ts";
import { mebibytes, pdfPageCostBytes } from "./document-memory.ts";
import type { DocumentJobResult } from "./document-thread.ts";
import { DocumentJobTimeout, DocumentRefused, type DocumentThread, documentThread, DocumentTooCostly } from "./document-thread-client.ts";
import type { InspectedPdf, RenderedPage } from "./pdfium-documents.ts";

export interface DocumentReaderOptions {
  /** Pages a document may have at all (the larger of MAX_DOCUMENT_PAGES and MAX_JOB_DOCUMENT_PAGES); more gets 413. */
  readonly maxPages: number;
  /** Per image or page, as for every image (MAX_IMAGE_PIXELS). */
  readonly maxPixels: number;
  /** Rasterising one PDF page or unpacking one bitmap, at most (ENGINE_DEADLINE_MS). */
  readonly deadlineMs: number;
  /** The most memory PDFium may grow to (DOCUMENT_MEMORY_MB); a PDF that needs more gets 413. */
  readonly memoryBytes: number;
}

/**
 * PDF pages are drawn at 300 dpi, the usual resolution of scans, which Tesseract reads best; a
 * page that would pass `pdfPagePixels` (posters, plans) is drawn smaller instead.
 */
const pdfDpi = 300;
const pdfPagePixels = 16_000_000;
/**
 * Opening a well-formed PDF and counting its pages takes milliseconds (a 1000-page one ~20 ms);
 * PDFium takes longer only to repair a broken file, and some broken files (10 MiB of unclosed
 * streams) keep it busy for minutes. One that is not open within this time is refused, so that
 * the whole request answers 422 within a second (issue 14).
 */
const pdfInspectDeadlineMs = 600;
/** The thread (with PDFium's memory) stops this long after its last job. */
const threadIdleMs = 60_000;

/**
 * Pages handed to the OCR engine: PNG, fast compression; grey stays grey (libvips would write a
 * one-band raw image as RGB: three times the bytes to deflate and inflate, then grey again).
 */
const pngOf = (raster: Raster<1 | 3>) =>
  sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: raster.channels } })
    .toColourspace(raster.channels === 1 ? "b-w" : "srgb")
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();

const asValidated = (png: Buffer, width: number, height: number): ValidatedImage => ({
  bytes: new Uint8Array(png.buffer, png.byteOffset, png.byteLength),
  format: "png",
  width,
  height,
});

const threadFailure =
  (what: string, timeout: (error: DocumentJobTimeout) => PageFailure) =>
  (error: unknown): PageFailure => {
    if (error instanceof DocumentRefused) return new InvalidImage({ message: error.message });
    if (error instanceof DocumentTooCostly) return new ImageTooLarge({ message: `the ${what} cannot be read: ${error.message}` });
    if (error instanceof DocumentJobTimeout) return timeout(error);
    return new DependencyUnavailable({ dependency: `document thread (${what})`, cause: error });
  };

const tooManyPages = (format: string, pages: number, maxPages: number) =>
  new ImageTooLarge({ message: `the ${format} document has ${pages} pages; the limit is ${maxPages} pages` });

export const makeDocumentReader = (inspector: ImageInspectorShape, thread: DocumentThread, options: DocumentReaderOptions): DocumentReaderShape => {
  const { maxPages, maxPixels, deadlineMs, memoryBytes } = options;
  const pagePixels = Math.min(maxPixels, pdfPagePixels);
  const engineTimeout = () => new EngineTimeout({ deadlineMs });
  /**
   * The thread is an engine like the others: its jobs wait behind the shared engine capacity
   * (one slot: the thread runs one job at a time), which refuses with EngineBusy what could not
   * finish within the deadline, so the thread never has a line of its own and a job's time
   * limit counts from when it starts.
   */
  const capacity = makeEngineCapacity({ concurrency: 1, deadlineMs });
  const onThread = <R extends DocumentJobResult>(job: Parameters<DocumentThread["run"]>[0], limitMs: number, failure: (error: unknown) => PageFailure) =>
    capacity.run(Effect.tryPromise({ try: () => thread.run<R>(job, limitMs), catch: failure }));

  /** BMP and PNM: the header is read and bounded here, the pixels unpacked in the thread. */
  const bitmap = <H>(kind: "bmp" | "pnm", bytes: Uint8Array, reading: HeaderReading<H>) =>
    Effect.gen(function* () {
      if (!reading.ok) return yield* new InvalidImage({ message: reading.message });
      const job = { kind, bytes, header: reading.header } as Parameters<DocumentThread["run"]>[0];
      const raster = yield* onThread<Raster<1 | 3>>(job, deadlineMs, threadFailure(kind, engineTimeout));
      const png = yield* Effect.tryPromise({ try: () => pngOf(raster), catch: (cause) => new DependencyUnavailable({ dependency: "sharp", cause }) });
      return asValidated(png, raster.width, raster.height);
    });

  const pdf = (bytes: Uint8Array) =>
    Effect.gen(function* () {
      const { pages, largestImage } = yield* onThread<InspectedPdf>(
        { kind: "pdf-inspect", bytes },
        pdfInspectDeadlineMs,
        threadFailure("PDF", () => new InvalidImage({ message: `the PDF is damaged: it could not be opened within ${pdfInspectDeadlineMs} ms` })),
      );
      if (pages > maxPages) return yield* tooManyPages("PDF", pages, maxPages);
      // Admitted by what it will cost to draw, before any page is: its largest image decoded.
      if (largestImage !== undefined) {
        const { width, height } = largestImage;
        const pixels = width * height;
        if (pixels > maxPixels) {
          return yield* new ImageTooLarge({ message: `the PDF holds an image of ${width}×${height} pixels; the limit is ${maxPixels} pixels an image` });
        }
        const cost = pdfPageCostBytes(bytes.length, pagePixels, pixels);
        if (cost > memoryBytes) {
          return yield* new ImageTooLarge({
            message: `the PDF holds an image of ${width}×${height} pixels, which needs ${mebibytes(cost)} MiB to draw; the document engine may use ${mebibytes(memoryBytes)} MiB`,
          });
        }
      }
      // Every page's job names the whole file: shared with the thread, not copied for each page (10 MiB each).
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
      shared.set(bytes);
      const page = (index: number) =>
        Effect.gen(function* () {
          const rendered = yield* onThread<RenderedPage>(
            { kind: "pdf-render", bytes: shared, page: index, dpi: pdfDpi, maxPixels: pagePixels },
            deadlineMs,
            threadFailure(`page ${index + 1} of the PDF`, engineTimeout),
          );
          const png = yield* Effect.tryPromise({ try: () => pngOf(rendered), catch: (cause) => new DependencyUnavailable({ dependency: "sharp", cause }) });
          return asValidated(png, rendered.width, rendered.height);
        });
      return { format: "pdf", pages, page } satisfies OpenedDocument;
    });

  /** A TIFF of one page is an image as before (undefined here); of several, a document whose pages libvips decodes one at a time. */
  const tiff = (bytes: Uint8Array) =>
    Effect.gen(function* () {
      // A header libvips cannot read is not a document: readImage then says what is wrong with it.
      const metadata = yield* Effect.promise(() =>
        sharp(bytes, { limitInputPixels: false })
          .metadata()
          .catch(() => undefined),
      );
      const pages = metadata?.pages ?? 1;
      if (pages <= 1) return undefined;
      if (pages > maxPages) return yield* tooManyPages("TIFF", pages, maxPages);
      const page = (index: number) =>
        Effect.gen(function* () {
          const decoder = () => sharp(bytes, { page: index, autoOrient: true, limitInputPixels: false, failOn: "error" });
          const { width, height } = yield* Effect.tryPromise({
            try: async () => (await decoder().metadata()).autoOrient,
            catch: () => new InvalidImage({ message: `page ${index + 1} of the TIFF cannot be read` }),
          });
          if (width * height > maxPixels) {
            return yield* new InvalidImage({ message: `page ${index + 1} of the TIFF is ${width}×${height}, over the pixel limit` });
          }
          const png = yield* Effect.tryPromise({
            try: () => decoder().png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer(),
            catch: () => new InvalidImage({ message: `page ${index + 1} of the TIFF is corrupt` }),
          });
          return asValidated(png, width, height);
        });
      return { format: "tiff", pages, page } satisfies OpenedDocument;
    });

  return {
    openDocument: (bytes) =>
      Effect.suspend((): Effect.Effect<OpenedDocument | undefined, PageFailure> => {
        const sniffed = sniffImageFormat(bytes);
        if (sniffed.accepted) return sniffed.format === "tiff" ? tiff(bytes) : Effect.succeed(undefined);
        // PDF readers look for the header within the first 1024 bytes.
        const pdfHeader = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes("%PDF-");
        return pdfHeader && !looksLikeBmp(bytes) && !looksLikePnm(bytes) ? pdf(bytes) : Effect.succeed(undefined);
      }),
    readImage: (bytes) =>
      Effect.suspend((): Effect.Effect<ValidatedImage, PageFailure> => {
        if (!sniffImageFormat(bytes).accepted) {
          if (looksLikeBmp(bytes)) return bitmap("bmp", bytes, readBmpHeader(bytes, maxPixels));
          if (looksLikePnm(bytes)) return bitmap("pnm", bytes, readPnmHeader(bytes, maxPixels));
        }
        return inspector.inspect(bytes);
      }),
  };
};

/** The reader with its thread, which stops when the layer's scope closes. */
export const documentReaderLayer = (options: DocumentReaderOptions) =>
  Layer.effect(DocumentReader)(
    Effect.gen(function* () {
      const inspector = yield* ImageInspector;
      const thread = yield* Effect.acquireRelease(
        Effect.sync(() => documentThread({ idleMs: threadIdleMs, pdfiumMemoryBytes: options.memoryBytes })),
        (started) => Effect.promise(() => started.terminate()),
      );
      return makeDocumentReader(inspector, thread, options);
    }),
  );
