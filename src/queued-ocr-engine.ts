import { Effect, Layer } from "effect";
import { makeEngineCapacity } from "./adapters/engine-capacity.ts";
import { formatReading } from "./adapters/ocr/ocr-layout-formats.ts";
import { OcrEngine, type OcrEngineShape, type OcrRequest } from "./ports/engines/ocr-engine.ts";
import { OcrRecognizer, type OcrRecognizerShape } from "./ports/engines/ocr-recognizer.ts";
import { DependencyUnavailable, EngineTimeout, InvalidImage, UnsupportedLanguage } from "./ports/errors.ts";

/**
 * The service's OCR engine, made from any engine's single reading (ports/engines/ocr-recognizer.ts)
 * by the same code for all: refuse a language it does not read, run behind the engine capacity
 * (slots, bounded waiting line, accounts taking turns, deadline), write the format asked for from
 * the reading (ocr-layout-formats.ts: every format, for every engine), and report failures as the
 * port's errors. The reading's own signal also fires at the deadline, so that a worker still busy
 * then is stopped and its slot freed.
 */
export interface OcrEngineCapacity {
  /** Requests that may wait for a worker before EngineBusy; default 8 per worker. */
  readonly maxQueued?: number;
  /** Per request, waiting included; default 30 s. */
  readonly deadlineMs?: number;
}

export const queuedOcrEngine = (recognizer: OcrRecognizerShape, options: OcrEngineCapacity = {}): OcrEngineShape => {
  const workers = Math.max(1, recognizer.workers);
  const deadlineMs = options.deadlineMs ?? 30_000;
  // A reading stops when its signal fires (its worker is stopped): a caller that leaves frees the slot.
  const capacity = makeEngineCapacity({ concurrency: workers, maxQueue: options.maxQueued ?? 8 * workers, deadlineMs, stopsWhenInterrupted: true });
  const deadlineExceeded = new EngineTimeout({ deadlineMs });
  const portError = (error: unknown): EngineTimeout | InvalidImage | DependencyUnavailable => {
    if (error === deadlineExceeded) return deadlineExceeded;
    if (error instanceof InvalidImage) return error;
    return new DependencyUnavailable({ dependency: recognizer.dependency, cause: error });
  };
  const recognize = (request: OcrRequest) =>
    Effect.tryPromise({
      try: (signal) => {
        const deadline = new AbortController();
        const timer = setTimeout(() => deadline.abort(deadlineExceeded), deadlineMs);
        return recognizer
          .recognizeOnce(request, AbortSignal.any([signal, deadline.signal]))
          .then((reading) => formatReading(request, reading))
          .finally(() => clearTimeout(timer));
      },
      catch: portError,
    });
  return {
    languages: recognizer.languages,
    parallelism: workers,
    recognize: (request) => {
      const unknown = request.language === "auto" ? [] : request.language.filter((language) => !recognizer.languages.includes(language));
      if (unknown.length > 0) return Effect.fail(new UnsupportedLanguage({ language: unknown.join("+"), supported: ["auto", ...recognizer.languages] }));
      return capacity.run(recognize(request));
    },
  };
};

/** An adapter's recognizer layer as the service's OcrEngine: how composition and the contract suite put every engine behind the same capacity. */
export const queuedOcrEngineLayer =
  (options: OcrEngineCapacity = {}) =>
  <E, R>(recognizer: Layer.Layer<OcrRecognizer, E, R>): Layer.Layer<OcrEngine, E, R> =>
    Layer.effect(OcrEngine)(Effect.map(OcrRecognizer, (shape) => queuedOcrEngine(shape, options))).pipe(Layer.provide(recognizer));
