import { Effect } from "effect";
import type { OcrEngineShape, OcrLanguage, OcrOutputFormat, OcrRequest, OcrResult } from "../../ports/engines/ocr-engine.ts";
import { DependencyUnavailable, EngineTimeout, InvalidImage, UnsupportedLanguage } from "../../ports/errors.ts";
import { makeEngineCapacity } from "../engine-capacity.ts";
import { ImageUnreadable } from "./ocr-image-preparation.ts";

/**
 * What every OCR engine does around its own recognition: refuse a language it does not read
 * (and a format it does not write: POST /ocr never asks for one, having checked `outputFormats`), run behind the engine capacity shared by all engines' design (slots, bounded waiting line,
 * deadline), and report failures as the port's errors. The recognition's own signal also fires
 * at the deadline, so that a worker still busy then is stopped and its slot freed.
 */
export const queuedRecognizer = <F extends OcrOutputFormat>(options: {
  readonly dependency: string;
  readonly languages: ReadonlyArray<OcrLanguage>;
  readonly outputFormats: ReadonlyArray<F>;
  readonly workers: number;
  readonly maxQueued: number;
  readonly deadlineMs: number;
  readonly recognizeOnce: (request: OcrRequest & { readonly outputFormat: F }, signal: AbortSignal) => Promise<OcrResult>;
}): OcrEngineShape => {
  // A recognition stops when its signal fires (its worker is stopped): a caller that leaves frees the slot.
  const capacity = makeEngineCapacity({
    concurrency: options.workers,
    maxQueue: options.maxQueued,
    deadlineMs: options.deadlineMs,
    stopsWhenInterrupted: true,
  });
  const deadlineExceeded = new EngineTimeout({ deadlineMs: options.deadlineMs });
  const portError = (error: unknown) => {
    if (error === deadlineExceeded) return deadlineExceeded;
    if (error instanceof ImageUnreadable) return new InvalidImage({ message: "the image could not be decoded" });
    return new DependencyUnavailable({ dependency: options.dependency, cause: error });
  };
  const recognize = (request: OcrRequest & { readonly outputFormat: F }) =>
    Effect.tryPromise({
      try: (signal) => {
        const deadline = new AbortController();
        const timer = setTimeout(() => deadline.abort(deadlineExceeded), options.deadlineMs);
        return options.recognizeOnce(request, AbortSignal.any([signal, deadline.signal])).finally(() => clearTimeout(timer));
      },
      catch: portError,
    });
  const writes = (request: OcrRequest): request is OcrRequest & { readonly outputFormat: F } =>
    (options.outputFormats as ReadonlyArray<OcrOutputFormat>).includes(request.outputFormat);
  return {
    languages: options.languages,
    outputFormats: options.outputFormats,
    parallelism: Math.max(1, options.workers),
    recognize: (request) => {
      const unknown = request.language === "auto" ? [] : request.language.filter((language) => !options.languages.includes(language));
      if (unknown.length > 0) return Effect.fail(new UnsupportedLanguage({ language: unknown.join("+"), supported: ["auto", ...options.languages] }));
      if (!writes(request)) {
        return Effect.fail(
          new DependencyUnavailable({ dependency: options.dependency, cause: new Error(`${options.dependency} writes no ${request.outputFormat}`) }),
        );
      }
      return capacity.run(recognize(request));
    },
  };
};
