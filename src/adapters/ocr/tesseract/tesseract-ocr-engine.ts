import os from "node:os";
import { Effect, Layer } from "effect";
import type { Page, RecognizeOptions, Worker } from "tesseract.js";
import {
  OcrEngine,
  type OcrEngineShape,
  type OcrLanguage,
  ocrLanguages,
  ocrOutputFormats,
  type OcrRequest,
  type OcrResult,
  type OcrScript,
} from "../../../ports/engines/ocr-engine.ts";
import { DependencyUnavailable } from "../../../ports/errors.ts";
import { identifyLatinLanguage } from "../latin-language-identification.ts";
import { blocksToDisplayed } from "../ocr-image-geometry.ts";
import { decodeUpright, measureTextLines, type PreparedImage, prepareImage, printResolution, statedResolution } from "../ocr-image-preparation.ts";
import { toHocr, toTsv } from "../ocr-layout-formats.ts";
import { autoCandidates, preferredOfScript, scriptOfOsdName } from "../ocr-scripts.ts";
import { tidyOcrText } from "../ocr-text.ts";
import { queuedRecognizer } from "../queued-recognizer.ts";
import { accentedLatinLanguages, mayBeAccentedLatin, readInLanguagesOf, repeatedForOsd, scriptOfLabel } from "../short-text-script.ts";
import { languagesUsed, withLanguages } from "../text-languages.ts";
import { holdsOneLine, type TextLines } from "../text-line-analysis.ts";
import { type TextLineThread, textLineThread } from "../text-line-thread-client.ts";
import { secondLanguage, unsureLatinConfidence, unsureLines } from "../unsure-lines.ts";
import { asOneLine, missingModels, type TesseractModel } from "./tesseract-language-data.ts";
import { pageBlocks } from "./tesseract-page-blocks.ts";
import { TesseractWorkerPool } from "./tesseract-worker-pool.ts";

/**
 * The default OCR engine: Tesseract 5 (LSTM) compiled to WebAssembly by tesseract.js, in a pool
 * of worker threads with every model loaded from npm packages.
 */
export interface TesseractPreprocessing {
  /** Convert to grey before reading. */
  readonly grayscale: boolean;
  /** Straighten text tilted by a few degrees, which Tesseract's layout analysis often loses. */
  readonly deskew: boolean;
  /** When a read is unsure, ask Tesseract's OSD whether the page is turned and read it upright. */
  readonly fixOrientation: boolean;
  /** Enlarge the image when its text is smaller than Tesseract reads well. */
  readonly upscaleSmallText: boolean;
}

export interface TesseractOcrEngineOptions {
  /** Recognitions at once; default: the number of cores. */
  readonly workers?: number;
  /** Requests that may wait for a worker before EngineBusy; default 8 per worker. */
  readonly maxQueued?: number;
  /** Per request, counted from when it starts running; default 30 s. */
  readonly deadlineMs?: number;
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

export const defaultTesseractPreprocessing: TesseractPreprocessing = {
  grayscale: true,
  deskew: true,
  fixOrientation: true,
  upscaleSmallText: true,
};

/** Below this mean confidence a reading is "unsure": worth an orientation check or another script. */
const unsureConfidence = 60;
const defaultIdleBudgetBytes = 256 * 2 ** 20;
/** OSD's own confidence above which a page is turned without reading it both ways. */
const sureOrientationConfidence = 2;
/** Tilt (degrees) below which Tesseract copes on its own, and the profile gain that makes a tilt believable. */
const minimumSkew = 1;
const minimumSkewGain = 1.2;
/**
 * Lines lower than this (px, ascender to descender as measured on the page) are enlarged
 * towards the target height: Tesseract misreads text only a few pixels high.
 */
const smallLineHeight = 12;
const targetLineHeight = 20;
const maximumScale = 3;
const maximumScaledPixels = 24_000_000;

interface Reading {
  readonly languages: ReadonlyArray<OcrLanguage>;
  readonly image: PreparedImage;
  readonly page: Page;
  /** Nothing was read: no point trying the page another way. */
  readonly empty: boolean;
}

type EngineOptions = Required<Omit<TesseractOcrEngineOptions, "warmLanguages" | "idleBudgetBytes">>;

const makeEngine = (pool: TesseractWorkerPool, lines: TextLineThread, options: EngineOptions): OcrEngineShape => {
  const preprocessing = { ...defaultTesseractPreprocessing, ...options.preprocessing };
  const languages = options.languages;

  const recognizeOnce = async (request: OcrRequest, signal: AbortSignal): Promise<OcrResult> => {
    const upright = await decodeUpright(request.image.bytes);
    const prepared = new Map<string, Promise<PreparedImage>>();
    const prepare = (rotation: number, scale: number) => {
      const key = `${rotation}@${scale}`;
      const image = prepared.get(key) ?? prepareImage(upright, { rotation, scale, grayscale: preprocessing.grayscale });
      prepared.set(key, image);
      return image;
    };
    let measuring: Promise<TextLines> | undefined;
    const measured = () => (measuring ??= measureTextLines(upright, lines.measure));
    /** Straightening angle and enlargement for the upright page, measured before any read. */
    const layout = async (): Promise<{ rotation: number; scale: number }> => {
      if (!preprocessing.deskew && !preprocessing.upscaleSmallText) return { rotation: 0, scale: 1 };
      const lines = await measured();
      const tilted = preprocessing.deskew && Math.abs(lines.skewDegrees) >= minimumSkew && lines.skewGain >= minimumSkewGain;
      const small = preprocessing.upscaleSmallText && lines.lineHeight !== undefined && lines.lineHeight < smallLineHeight;
      const pixelBound = Math.sqrt(maximumScaledPixels / (upright.width * upright.height));
      const scale = small ? Math.max(1, Math.min(maximumScale, pixelBound, targetLineHeight / (lines.lineHeight ?? targetLineHeight))) : 1;
      return { rotation: tilted ? -lines.skewDegrees : 0, scale: Number(scale.toFixed(2)) };
    };

    // The layout (blocks) costs a walk over every symbol, so it is asked for only when the format
    // shows it. A searchable PDF is Tesseract's own renderer (its glyphless font, the text at each
    // word's baseline, invisible), over the image it read; told the image's resolution, it sizes
    // the page as printed (otherwise it takes 70 dpi). Otherwise Tesseract is told the resolution
    // the image states, as the CLI reads it from the file: the PNG it is handed states none, and
    // the 72 dpi Arabic handbook page, taken for 268, lost a line (13.08 % CER against 10.63).
    const pdf = request.outputFormat === "pdf";
    const output = { text: true, blocks: request.outputFormat !== "text" && !pdf, pdf };
    const dpi = pdf ? await printResolution(request.image.bytes) : await statedResolution(request.image.bytes);
    // Each model reads each prepared image once: a label's script check gives the readings its script's languages reuse.
    const readings = new Map<PreparedImage, Map<string, Promise<Reading>>>();
    const read = (model: ReadonlyArray<OcrLanguage>, image: PreparedImage): Promise<Reading> => {
      const byModel = readings.get(image) ?? new Map<string, Promise<Reading>>();
      readings.set(image, byModel);
      const reading = byModel.get(model.join("+")) ?? readOnce(model, image);
      byModel.set(model.join("+"), reading);
      return reading;
    };
    const readOnce = async (model: ReadonlyArray<OcrLanguage>, image: PreparedImage, blocks = output.blocks): Promise<Reading> => {
      const options: Partial<RecognizeOptions> & { readonly user_defined_dpi?: string } =
        dpi === undefined ? {} : { ...(pdf ? { pdfTitle: "" } : {}), user_defined_dpi: String(Math.round(dpi * image.scale)) };
      // A label of one line, read the way up it was measured, is read as one line (holdsOneLine).
      const oneLine = Math.abs(image.rotation) < 45 && holdsOneLine(await measured(), upright.height);
      const recognize = (worker: Worker) => worker.recognize(image.png, options, { ...output, blocks });
      const { data: page } = await pool.withWorker(model, signal, (worker) => (oneLine ? asOneLine(worker, () => recognize(worker)) : recognize(worker)));
      return { languages: model, image, page, empty: page.text.trim() === "" };
    };
    const better = (a: Reading, b: Reading) => (b.page.confidence > a.page.confidence ? b : a);
    const asScriptReading = (reading: Reading) => ({ ...reading.page, language: reading.languages[0] ?? "eng", reading });
    const betterOfScript = (a: Reading, b: Reading) => preferredOfScript(asScriptReading(a), asScriptReading(b)).reading;

    /** OSD's view of the page: a quarter turn (0 unless asked to fix orientation), whether OSD is sure of it, the script. */
    const orientationAndScript = async (image: PreparedImage) => {
      const { data } = await pool.withWorker("osd", signal, (worker) => worker.detect(image.png));
      return {
        rotation: preprocessing.fixOrientation ? (data.orientation_degrees ?? 0) % 360 : 0,
        sure: (data.orientation_confidence ?? 0) >= sureOrientationConfidence,
        script: scriptOfOsdName(data.script),
        scriptConfidence: data.script_confidence ?? 0,
      };
    };
    /** An unsure reading is tried again turned as OSD suggests, and the better one kept. */
    const turnedIfBetter = async (reading: Reading, rotation: number): Promise<Reading> =>
      rotation === 0 || reading.empty || reading.page.confidence >= unsureConfidence
        ? reading
        : better(reading, await read(reading.languages, await prepare(rotation, 1)));

    const readKnown = async (model: ReadonlyArray<OcrLanguage>): Promise<Reading> => {
      const straightened = await layout();
      const first = await read(model, await prepare(straightened.rotation, straightened.scale));
      if (!preprocessing.fixOrientation || first.empty || first.page.confidence >= unsureConfidence) return first;
      return turnedIfBetter(first, (await orientationAndScript(await prepare(0, 1))).rotation);
    };

    /** The script of a label, where OSD on the image named none (see short-text-script.ts). */
    const scriptOfShortText = async (image: PreparedImage): Promise<OcrScript | undefined> => {
      const grid = await repeatedForOsd(image.png);
      if (grid === undefined) return undefined;
      const { data } = await pool.withWorker("osd", signal, (worker) => worker.detect(grid));
      return scriptOfLabel(scriptOfOsdName(data.script), (script) =>
        readInLanguagesOf(script, autoCandidates(script, languages), async (language) => (await read([language], image)).page),
      );
    };

    /** The language of a second script on a page OSD named Latin unsurely (unsure-lines.ts); its English reading primes the cache. */
    const secondScriptLanguage = async (image: PreparedImage): Promise<OcrLanguage | undefined> => {
      const english = readOnce(["eng"], image, true);
      readings.set(image, new Map([...(readings.get(image) ?? []), ["eng", english]]));
      return secondLanguage(image.png, unsureLines(pageBlocks((await english).page).flatMap((block) => block.lines)), {
        scriptOf: async (png) => scriptOfOsdName((await pool.withWorker("osd", signal, (worker) => worker.detect(png))).data.script),
        candidates: (script) => autoCandidates(script, languages),
        read: async (language, png) => (await pool.withWorker([language], signal, (worker) => worker.recognize(png))).data,
      });
    };

    const readAuto = async (): Promise<Reading> => {
      const osd = await orientationAndScript(await prepare(0, 1));
      const turned = osd.sure && osd.rotation !== 0;
      const image = turned ? await prepare(osd.rotation, 1) : await layout().then(({ rotation, scale }) => prepare(rotation, scale));
      const found = osd.script ?? (await scriptOfShortText(image));
      // The script OSD names settles which languages can read the page; each of that script's
      // usual languages reads it (the first turned both ways when OSD was unsure of the turn), the
      // most confident reading wins. Latin text then names its own language from its words.
      // A page in another script is read together with English (`hin+eng`), as the CLI is told
      // for a mixed page: headings, names and codes in Latin letters are read, not lost; Tesseract
      // tries the second model only on words the first reads badly. A label (OSD named no script) is
      // read in its own script alone: a word is in one, and each pair is one more worker to start.
      // A page OSD names Latin unsurely is checked for a second script (unsure-lines.ts).
      const latinUnsure = osd.script === "Latin" && osd.scriptConfidence < unsureLatinConfidence && languages.includes("eng");
      const second = latinUnsure ? await secondScriptLanguage(image) : undefined;
      if (second !== undefined) return read([second, "eng"], image);
      const script = found !== undefined && autoCandidates(found, languages).length > 0 ? found : "Latin";
      const withLatin = (language: OcrLanguage): ReadonlyArray<OcrLanguage> =>
        script !== "Latin" && osd.script !== undefined && languages.includes("eng") ? [language, "eng"] : [language];
      const [first, ...others] = autoCandidates(script, languages);
      if (first === undefined) throw new Error("no language to read with");
      let best = await read(withLatin(first), image);
      if (!turned) best = await turnedIfBetter(best, osd.rotation);
      for (const language of others) {
        if (best.empty) break;
        best = betterOfScript(best, await read(withLatin(language), best.image));
      }
      if (osd.script === undefined && script === "Latin" && mayBeAccentedLatin(best.page.text, best.page.confidence)) {
        for (const language of accentedLatinLanguages.filter((code) => languages.includes(code))) best = better(best, await read([language], best.image));
        return best;
      }
      const latin = script === "Latin" ? identifyLatinLanguage(best.page.text) : undefined;
      return latin !== undefined && latin !== best.languages[0] && languages.includes(latin) ? read([latin], best.image) : best;
    };

    const reading = request.language === "auto" ? await readAuto() : await readKnown(request.language);
    const text = tidyOcrText(reading.page.text);
    // "auto" names the languages actually found in the text (hin+eng, or hin alone); a named request, those named.
    const used = request.language === "auto" ? languagesUsed(text, reading.languages) : reading.languages;
    const language = used.join("+");
    const base = { text, language, confidence: text === "" ? 0 : reading.page.confidence };
    const page = { width: upright.width, height: upright.height, language };
    const blocks = () => withLanguages(blocksToDisplayed(reading.image, pageBlocks(reading.page)), used);
    switch (request.outputFormat) {
      case "text":
        return { ...base, outputFormat: "text" };
      case "json":
        return { ...base, outputFormat: "json", blocks: blocks() };
      case "hocr":
        return { ...base, outputFormat: "hocr", hocr: toHocr(blocks(), page) };
      case "tsv":
        return { ...base, outputFormat: "tsv", tsv: toTsv(blocks(), page) };
      case "pdf":
        if (reading.page.pdf === null) throw new Error("tesseract returned no PDF");
        return { ...base, outputFormat: "pdf", pdf: Uint8Array.from(reading.page.pdf) };
    }
  };

  return queuedRecognizer({
    dependency: "tesseract",
    languages: languages,
    outputFormats: ocrOutputFormats,
    workers: options.workers,
    maxQueued: options.maxQueued,
    deadlineMs: options.deadlineMs,
    recognizeOnce,
  });
};

export const TesseractOcrEngine = {
  /** Starts the workers (warm-up) when the layer is built; terminates them when its scope closes. */
  layer: (options: TesseractOcrEngineOptions = {}): Layer.Layer<OcrEngine, DependencyUnavailable> => {
    const workers = Math.max(1, options.workers ?? os.availableParallelism());
    const languages = options.languages ?? ocrLanguages;
    const warm = (options.warmLanguages ?? []).filter((language) => languages.includes(language));
    const resolved = {
      workers,
      maxQueued: options.maxQueued ?? 8 * workers,
      deadlineMs: options.deadlineMs ?? 30_000,
      languages,
      preprocessing: options.preprocessing ?? {},
    };
    // One warm worker per warm language and, with them, one for OSD (which "auto" asks first); a second
    // worker of a language starts when two requests want it at once.
    const warmSet = warm.map((language): readonly [TesseractModel, number] => [[language], 1]);
    const idleBudgetBytes = options.idleBudgetBytes ?? defaultIdleBudgetBytes;
    const start = Effect.tryPromise({
      try: async () => {
        // Every language offered must be there to load: GET /ocr/languages lists only those.
        const missing = await missingModels([...languages, "osd"]);
        if (missing.length > 0) throw new Error(`no tesseract model installed for ${missing.join(", ")}`);
        return TesseractWorkerPool.start(warmSet.length === 0 ? [] : [...warmSet, ["osd", 1]], idleBudgetBytes);
      },
      catch: (cause) => new DependencyUnavailable({ dependency: "tesseract", cause }),
    });
    const pool = Effect.acquireRelease(start, (started) => Effect.promise(() => started.terminate()));
    return Layer.effect(OcrEngine)(Effect.zipWith(pool, textLineThread("tesseract"), (started, lines) => makeEngine(started, lines, resolved)));
  },
};
