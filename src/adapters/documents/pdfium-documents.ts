import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { PDFiumModule } from "@hyzyla/pdfium";
import type { Raster } from "../image/raster.ts";
import { type PdfImageSize, pdfImageSizes } from "./pdf-image-scan.ts";
import { withMemoryMaximum } from "./wasm-memory-limit.ts";

/**
 * PDFs read by PDFium (Chrome's PDF engine) compiled to WebAssembly, from the npm package
 * `@hyzyla/pdfium`. That build has no JavaScript engine (no V8, no XFA), no network and no file
 * system beyond its own memory: fonts a PDF does not embed are drawn with PDFium's built-in
 * substitutes, never fetched. Used only inside the document thread: parsing and rasterising are
 * CPU work on client bytes.
 *
 * Still refused: encrypted PDFs (even those that open with an empty password) and PDFs that
 * carry JavaScript, which nothing here would run but which a document for OCR has no reason to
 * hold; broken files that PDFium cannot repair.
 */

/** The C functions used here; the package's own typing lists only some of them. */
export interface Pdfium {
  _FPDF_InitLibrary: () => void;
  _FPDF_LoadMemDocument: (data: number, size: number, password: number) => number;
  _FPDF_GetLastError: () => number;
  _FPDF_CloseDocument: (document: number) => void;
  _FPDF_GetPageCount: (document: number) => number;
  _FPDF_GetSecurityHandlerRevision: (document: number) => number;
  _FPDFDoc_GetJavaScriptActionCount: (document: number) => number;
  _FPDF_LoadPage: (document: number, index: number) => number;
  _FPDF_ClosePage: (page: number) => void;
  _FPDF_GetPageWidthF: (page: number) => number;
  _FPDF_GetPageHeightF: (page: number) => number;
  _FPDFBitmap_CreateEx: (width: number, height: number, format: number, buffer: number, stride: number) => number;
  _FPDFBitmap_FillRect: (bitmap: number, left: number, top: number, width: number, height: number, colour: number) => void;
  _FPDFBitmap_Destroy: (bitmap: number) => void;
  _FPDF_RenderPageBitmap: (bitmap: number, page: number, x: number, y: number, width: number, height: number, rotate: number, flags: number) => void;
  readonly wasmExports: {
    readonly malloc: (size: number) => number;
    readonly free: (pointer: number) => void;
    readonly memory: { grow: (pages: number) => number };
  };
  readonly HEAPU8: Uint8Array;
}

/** A problem of the client's file, said in words the client can act on (422). */
export class UnreadableDocument extends Error {
  override readonly name = "UnreadableDocument";
}

const FPDF_ERR_PASSWORD = 4;
const FPDF_ERR_SECURITY = 5;
const FPDFBITMAP_GRAY = 1;
/** Annotations' appearances (stamps, filled fields) are part of what a page shows; grey output. */
const RENDER_FLAGS = 0x01 | 0x08;

/**
 * What has gone wrong inside the loaded module. Either makes it unfit for another job: after an
 * abort or a trap its heap is in an unknown state, and an allocation PDFium could not make may
 * have left a page drawn without an image. The thread that sees either is discarded
 * (document-thread.ts); nothing here resets them.
 */
const condition = { memoryRefused: false, broken: false };
export const pdfiumCondition = (): Readonly<typeof condition> => condition;

let loaded: Promise<Pdfium> | undefined;

/** PDFium with its memory capped at `memoryBytes` (the build's own cap is 2 GiB); loaded once per thread. */
export const loadPdfium = (memoryBytes: number): Promise<Pdfium> =>
  (loaded ??= (async () => {
    const wasm = await readFile(createRequire(import.meta.url).resolve("@hyzyla/pdfium/pdfium.wasm"));
    const binary = withMemoryMaximum(wasm, memoryBytes);
    // The binary is handed over, so the loader never looks for a file or a URL of its own.
    const module = (await PDFiumModule({
      wasmBinary: binary.buffer,
      locateFile: () => "",
      onAbort: () => (condition.broken = true),
      // Its own notes on stderr (a refused growth, the abort) would break the JSON log; the thread reports both.
      print: () => undefined,
      printErr: () => undefined,
    } as Parameters<typeof PDFiumModule>[0])) as unknown as Pdfium;
    // The loader grows memory only through this method and reads a throw as "out of memory".
    const memory = module.wasmExports.memory;
    const grow = memory.grow.bind(memory);
    memory.grow = (pages: number) => {
      try {
        return grow(pages);
      } catch (error) {
        condition.memoryRefused = true;
        throw error;
      }
    };
    module._FPDF_InitLibrary();
    return module;
  })().catch((error: unknown) => {
    // A failed load is tried again by the next job instead of failing every job after it.
    loaded = undefined;
    throw error;
  }));

/** `/JavaScript` or `/JS` as a PDF name (followed by a delimiter), anywhere in the raw file. */
const namesJavaScript = (bytes: Uint8Array): boolean => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const name of ["/JavaScript", "/JS"]) {
    for (let at = buffer.indexOf(name); at >= 0; at = buffer.indexOf(name, at + 1)) {
      const next = buffer[at + name.length];
      if (next === undefined || " \t\r\n\f\0/<>[]()%".includes(String.fromCharCode(next))) return true;
    }
  }
  return false;
};

/** Opens the client's bytes in PDFium's memory, runs `use`, and frees everything whatever happens. */
const withDocument = <A>(pdfium: Pdfium, bytes: Uint8Array, use: (document: number) => A): A => {
  const data = pdfium.wasmExports.malloc(bytes.length);
  if (data === 0) throw new Error("PDFium could not allocate memory for the document");
  try {
    pdfium.HEAPU8.set(bytes, data);
    const document = pdfium._FPDF_LoadMemDocument(data, bytes.length, 0);
    if (document === 0) {
      const error = pdfium._FPDF_GetLastError();
      if (error === FPDF_ERR_PASSWORD || error === FPDF_ERR_SECURITY) throw new UnreadableDocument("the PDF is encrypted; send it without a password");
      throw new UnreadableDocument("the PDF is damaged or not a PDF: it cannot be read");
    }
    try {
      return use(document);
    } finally {
      pdfium._FPDF_CloseDocument(document);
    }
  } finally {
    pdfium.wasmExports.free(data);
  }
};

export interface InspectedPdf {
  readonly pages: number;
  /** The image with the most pixels, from the file's image dictionaries (pdf-image-scan.ts); undefined if none is seen. */
  readonly largestImage: PdfImageSize | undefined;
}

/** The page count and largest image of a PDF this service accepts; UnreadableDocument says why one is refused. */
export const inspectPdf = (pdfium: Pdfium, bytes: Uint8Array): InspectedPdf => {
  if (namesJavaScript(bytes)) throw new UnreadableDocument("the PDF carries JavaScript; PDFs with scripts are refused");
  return withDocument(pdfium, bytes, (document) => {
    if (pdfium._FPDF_GetSecurityHandlerRevision(document) !== -1) throw new UnreadableDocument("the PDF is encrypted; send it without a password");
    // Scripts inside compressed object streams escape the byte scan; the document's own list does not.
    if (pdfium._FPDFDoc_GetJavaScriptActionCount(document) > 0) throw new UnreadableDocument("the PDF carries JavaScript; PDFs with scripts are refused");
    const pages = pdfium._FPDF_GetPageCount(document);
    if (pages < 1) throw new UnreadableDocument("the PDF has no pages");
    // Scanned only once PDFium has opened the file (opening decodes no image): a damaged file is refused without paying for the scan.
    const largestImage = pdfImageSizes(bytes).reduce<PdfImageSize | undefined>(
      (largest, image) => (largest === undefined || image.width * image.height > largest.width * largest.height ? image : largest),
      undefined,
    );
    return { pages, largestImage };
  });
};

/** A page drawn in grey. */
export type RenderedPage = Raster<1>;

/**
 * One page (0-based) in grey at `dpi`, scaled down further when that would pass `maxPixels`
 * (a poster-sized page), so the bitmap's size is bounded whatever the file declares.
 */
export const renderPdfPage = (pdfium: Pdfium, bytes: Uint8Array, index: number, dpi: number, maxPixels: number): RenderedPage => {
  return withDocument(pdfium, bytes, (document) => {
    const page = pdfium._FPDF_LoadPage(document, index);
    if (page === 0) throw new UnreadableDocument(`page ${index + 1} of the PDF cannot be read`);
    try {
      const points = { width: pdfium._FPDF_GetPageWidthF(page), height: pdfium._FPDF_GetPageHeightF(page) };
      if (!(points.width > 0 && points.height > 0)) throw new UnreadableDocument(`page ${index + 1} of the PDF has no area`);
      const scale = Math.min(dpi / 72, Math.sqrt(maxPixels / (points.width * points.height)));
      const width = Math.max(1, Math.floor(points.width * scale + 0.01));
      const height = Math.max(1, Math.floor(points.height * scale + 0.01));
      const buffer = pdfium.wasmExports.malloc(width * height);
      if (buffer === 0) throw new Error("PDFium could not allocate memory for the page");
      try {
        const bitmap = pdfium._FPDFBitmap_CreateEx(width, height, FPDFBITMAP_GRAY, buffer, width);
        try {
          pdfium._FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
          pdfium._FPDF_RenderPageBitmap(bitmap, page, 0, 0, width, height, 0, RENDER_FLAGS);
          return { width, height, channels: 1, data: pdfium.HEAPU8.slice(buffer, buffer + width * height) };
        } finally {
          pdfium._FPDFBitmap_Destroy(bitmap);
        }
      } finally {
        pdfium.wasmExports.free(buffer);
      }
    } finally {
      pdfium._FPDF_ClosePage(page);
    }
  });
};
