import os from "node:os";
import { Effect, Layer } from "effect";
import { type OcrLanguage, ocrLanguages } from "../../../ports/engines/ocr-engine.ts";
import { OcrRecognizer, type OcrRecognizerShape } from "../../../ports/engines/ocr-recognizer.ts";
import { DependencyUnavailable } from "../../../ports/errors.ts";
import { type TextLineThread, textLineThread } from "../text-line-thread-client.ts";
import { openTesseractCli } from "./tesseract-cli-models.ts";
import { TesseractCliReaders } from "./tesseract-cli-readers.ts";
import { missingModels, type TesseractModel } from "./tesseract-language-data.ts";
import type { TesseractReaders } from "./tesseract-reader.ts";
import { defaultTesseractPreprocessing, type RecognitionSetup, recognizeRequest, type TesseractPreprocessing } from "./tesseract-recognition.ts";
import { TesseractWorkerPool } from "./tesseract-worker-pool.ts";

export { defaultTesseractPreprocessing, type TesseractPreprocessing } from "./tesseract-recognition.ts";

/**
 * The default OCR engine: Tesseract 5 (LSTM) with every model loaded from npm packages, run either
 * compiled to WebAssembly by tesseract.js in a pool of worker threads (the default: nothing to
 * install) or as the system's native `tesseract` CLI, a process per reading (`runtime: "native"`:
 * about twice as fast, for a machine with Debian's `tesseract-ocr`). How one request is read is
 * in tesseract-recognition.ts, the same for both.
 */
export interface TesseractOcrEngineOptions {
  /** Where Tesseract runs; default "wasm". */
  readonly runtime?: "wasm" | "native";
  /** The native CLI to run; default `tesseract` on the PATH. */
  readonly command?: string;
  /**
   * The native CLI's models: the npm packages' (default: the readings tesseract.js gives) or the
   * system's where its language package is installed (Debian's tessdata_fast: the CLI's own pace
   * and readings; less accurate on some scripts). tesseract.js reads the packages' always.
   */
  readonly models?: "packaged" | "system";
  /** Recognitions at once; default: the number of cores. */
  readonly workers?: number;
  /** Languages offered; default all the service knows. */
  readonly languages?: ReadonlyArray<OcrLanguage>;
  /** Languages whose worker starts with the layer (default none); others start on first use. */
  readonly warmLanguages?: ReadonlyArray<OcrLanguage>;
  /**
   * Memory the idle workers may hold, in bytes (default 256 MiB); beyond it the least recently
   * used are stopped. Busy workers (at most `workers`) come on top.
   */
  readonly idleBudgetBytes?: number;
  readonly preprocessing?: Partial<TesseractPreprocessing>;
}

const defaultIdleBudgetBytes = 256 * 2 ** 20;

type EngineOptions = Required<Pick<TesseractOcrEngineOptions, "workers" | "languages" | "preprocessing">>;

const makeEngine = (pool: TesseractReaders, lineThread: TextLineThread, options: EngineOptions): OcrRecognizerShape => {
  const engine: RecognitionSetup = {
    pool,
    lineThread,
    preprocessing: { ...defaultTesseractPreprocessing, ...options.preprocessing },
    languages: options.languages,
  };
  return {
    dependency: "tesseract",
    languages: engine.languages,
    workers: options.workers,
    recognizeOnce: (request, signal) => recognizeRequest(engine, request, signal),
  };
};

export const TesseractOcrEngine = {
  /** Starts the workers (warm-up) when the layer is built; terminates them when its scope closes. */
  layer: (options: TesseractOcrEngineOptions = {}): Layer.Layer<OcrRecognizer, DependencyUnavailable> => {
    const workers = Math.max(1, options.workers ?? os.availableParallelism());
    const languages = options.languages ?? ocrLanguages;
    const warm = (options.warmLanguages ?? []).filter((language) => languages.includes(language));
    const resolved = { workers, languages, preprocessing: options.preprocessing ?? {} };
    // One warm worker per warm language and, with them, one for OSD (which "auto" asks first); a second
    // worker of a language starts when two requests want it at once.
    const warmSet = warm.map((language): readonly [TesseractModel, number] => [[language], 1]);
    const idleBudgetBytes = options.idleBudgetBytes ?? defaultIdleBudgetBytes;
    const start = Effect.tryPromise({
      try: async () => {
        // Every language offered must be there to load: GET /ocr/languages lists only those.
        const missing = await missingModels([...languages, "osd"]);
        if (missing.length > 0) throw new Error(`no tesseract model installed for ${missing.join(", ")}`);
        if (options.runtime === "native") {
          const cli = await openTesseractCli(options.command ?? "tesseract", languages, options.models ?? "packaged");
          await cli.unpack(warm.length === 0 ? [] : [...warm, "osd"]);
          return new TesseractCliReaders(cli);
        }
        return TesseractWorkerPool.start(warmSet.length === 0 ? [] : [...warmSet, ["osd", 1]], idleBudgetBytes);
      },
      catch: (cause) => new DependencyUnavailable({ dependency: "tesseract", cause }),
    });
    const pool = Effect.acquireRelease(start, (started: TesseractReaders) => Effect.promise(() => started.terminate()));
    return Layer.effect(OcrRecognizer)(Effect.zipWith(pool, textLineThread("tesseract"), (started, lines) => makeEngine(started, lines, resolved)));
  },
};
