import { Effect } from "effect";
import { DependencyUnavailable, EngineBusy, EngineTimeout, InvalidImage, UnsupportedLanguage } from "../../ports/errors.ts";
import type { OcrEngineShape, OcrLanguage, OcrRequest, OcrResult } from "../../ports/ocr-engine.ts";
import { BoundedWorkQueue, DeadlineExceeded, QueueFull } from "./bounded-work-queue.ts";
import { ImageUnreadable } from "./ocr-image-preparation.ts";

/**
 * What every OCR engine does around its own recognition: refuse a language it does not read,
 * run behind a bounded queue with a deadline, and report failures as the port's errors.
 */
export const queuedRecognizer = (options: {
  readonly dependency: string;
  readonly languages: ReadonlyArray<OcrLanguage>;
  readonly workers: number;
  readonly maxQueued: number;
  readonly deadlineMs: number;
  readonly recognizeOnce: (request: OcrRequest, signal: AbortSignal) => Promise<OcrResult>;
}): OcrEngineShape => {
  const queue = new BoundedWorkQueue({ concurrency: options.workers, maxQueued: options.maxQueued, deadlineMs: options.deadlineMs });
  const portError = (error: unknown) => {
    if (error instanceof QueueFull) return new EngineBusy({ retryAfterSeconds: 1 + Math.floor(queue.queued / options.workers) });
    if (error instanceof DeadlineExceeded) return new EngineTimeout({ deadlineMs: options.deadlineMs });
    if (error instanceof ImageUnreadable) return new InvalidImage({ message: "the image could not be decoded" });
    return new DependencyUnavailable({ dependency: options.dependency, cause: error });
  };
  return {
    languages: options.languages,
    recognize: (request) =>
      request.language !== "auto" && !options.languages.includes(request.language)
        ? Effect.fail(new UnsupportedLanguage({ language: request.language, supported: ["auto", ...options.languages] }))
        : Effect.tryPromise({ try: (signal) => queue.run((jobSignal) => options.recognizeOnce(request, jobSignal), signal), catch: portError }),
  };
};
