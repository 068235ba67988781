import { Effect, Semaphore } from "effect";
import type { OpenedDocument } from "../../ports/engines/document-reader.ts";
import type { OcrEngineShape, OcrRequest } from "../../ports/engines/ocr-engine.ts";
import type { OcrPageResult } from "./ocr-document-result.ts";
import { WorkProgress } from "./work-progress.ts";

/**
 * A document's pages read at the engine's pace: as many at once as the engine has workers
 * (`engine.parallelism`), and one more drawn meanwhile, so that a worker that finishes a page
 * finds the next one ready instead of waiting for it to be drawn. Read one after another, a
 * 20-page PDF kept one worker busy and left the others idle (0.24 of the native CLI's pace).
 *
 * - Memory: at most `parallelism + 1` pages are held at once (each fiber holds one page, from
 *   drawing it to its reading's end).
 * - Fair share: every page still goes through `engine.recognize`, so it waits its turn among
 *   other accounts' requests (the engine's capacity takes turns by account) under the engine's
 *   deadline. The page drawn ahead waits here, not in the engine's line: the document never
 *   queues behind itself there, where the wait would count against its page's deadline and
 *   lengthen the line other requests are admitted by.
 * - Results come in page order whatever order the pages finish in; the first page that fails
 *   fails the document and stops the pages still being read (the engine frees their workers).
 */
export const readDocumentPages = (document: OpenedDocument, engine: OcrEngineShape, request: Omit<OcrRequest, "image">) =>
  Effect.suspend(() => {
    const parallelism = Math.max(1, engine.parallelism);
    const reading = Semaphore.makeUnsafe(parallelism);
    const indices = Array.from({ length: document.pages }, (_, index) => index);
    return Effect.forEach(
      indices,
      (index) =>
        document.page(index).pipe(
          Effect.flatMap((image) => reading.withPermits(1)(engine.recognize({ image, ...request }))),
          Effect.map((result): OcrPageResult => ({ page: index + 1, ...result })),
          Effect.tap(() => Effect.flatMap(WorkProgress, (progress) => progress.unitDone)),
        ),
      { concurrency: parallelism + 1 },
    );
  });
