import { Context, type Effect } from "effect";
import type { DependencyUnavailable, EngineBusy, EngineTimeout, ImageTooLarge, InvalidImage } from "../errors.ts";
import type { ValidatedImage } from "./image.ts";

/**
 * What a client sends to be read (POST /ocr): one image, or a document of pages. Images are every
 * format the image inspector accepts plus BMP and PNM (PBM, PGM, PPM); documents are PDF and
 * multi-page TIFF. A document is opened, and its pages counted and bounded, before anything else,
 * so that its quota can be reserved for every page; an image is read only after its quota unit
 * is reserved, as on every route.
 */
export type PageFailure = InvalidImage | ImageTooLarge | EngineBusy | EngineTimeout | DependencyUnavailable;

export interface OpenedDocument {
  readonly format: "pdf" | "tiff";
  readonly pages: number;
  /** Page `index` (0-based) as an image an OCR engine reads, made when asked: the caller bounds how many pages it holds at once. */
  readonly page: (index: number) => Effect.Effect<ValidatedImage, PageFailure>;
}

export interface DocumentReaderShape {
  /**
   * The document these bytes hold, or undefined when they are not one (an image, or nothing
   * readable: `readImage` says what is wrong). ImageTooLarge (413) over the page limit;
   * InvalidImage for a document that is broken, encrypted or carries scripts.
   */
  readonly openDocument: (bytes: Uint8Array) => Effect.Effect<OpenedDocument | undefined, PageFailure>;
  /** One image, BMP and PNM included, checked like every image (format, pixel limit). */
  readonly readImage: (bytes: Uint8Array) => Effect.Effect<ValidatedImage, PageFailure>;
}

export class DocumentReader extends Context.Service<DocumentReader, DocumentReaderShape>()("DocumentReader") {}
