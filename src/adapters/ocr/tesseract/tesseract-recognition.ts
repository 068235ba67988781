import { PSM } from "tesseract.js";
import type { OcrLanguage, OcrRequest, OcrScript } from "../../../ports/engines/ocr-engine.ts";
import type { OcrReading } from "../../../ports/engines/ocr-recognizer.ts";
import { identifyLatinLanguage } from "../latin-language-identification.ts";
import { straighteningRotation, upscaleFactor, type Upscaling } from "../ocr-deskew-upscale.ts";
import { blocksToDisplayed } from "../ocr-image-geometry.ts";
import {
  type DecodedImage,
  decodeUpright,
  measureTextLines,
  type PreparedImage,
  preparedPng,
  prepareImage,
  statedResolution,
} from "../ocr-image-preparation.ts";
import { autoCandidates, preferredOfScript, scriptOfOsdName } from "../ocr-scripts.ts";
import { tidyOcrText } from "../ocr-text.ts";
import { accentedLatinLanguages, mayBeAccentedLatin, readInLanguagesOf, repeatedForOsd, scriptOfLabel } from "../short-text-script.ts";
import { languagesUsed, withLanguages } from "../text-languages.ts";
import { holdsOneLine, type TextLines } from "../text-line-analysis.ts";
import type { TextLineThread } from "../text-line-thread-client.ts";
import { secondLanguage, unsureLatinConfidence, unsureLines } from "../unsure-lines.ts";
import { pageBlocks } from "./tesseract-page-blocks.ts";
import type { TesseractPage, TesseractReader, TesseractReaders, TesseractReadOptions } from "./tesseract-reader.ts";

/**
 * How the Tesseract engine (tesseract-ocr-engine.ts) reads one request: the page decoded and
 * prepared (straightened, enlarged, grey), read in the languages named, or in those of the
 * script OSD finds ("auto"), turned when the reading is unsure, and answered in the format asked.
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

export const defaultTesseractPreprocessing: TesseractPreprocessing = {
  grayscale: true,
  deskew: true,
  fixOrientation: true,
  upscaleSmallText: true,
};

/** Below this mean confidence a reading is "unsure": worth an orientation check or another script. */
const unsureConfidence = 60;
/** OSD's own confidence above which a page is turned without reading it both ways. */
const sureOrientationConfidence = 2;
/**
 * Lines lower than 12 px (ascender to descender as measured on the page) are enlarged towards
 * 20 px: Tesseract misreads text only a few pixels high.
 */
const upscaling: Upscaling = { belowLineHeight: 12, targetLineHeight: 20, maximumPixels: 24_000_000 };

interface Reading {
  readonly languages: ReadonlyArray<OcrLanguage>;
  readonly image: PreparedImage;
  readonly page: TesseractPage;
  /** Nothing was read: no point trying the page another way. */
  readonly empty: boolean;
}

/** What every request to one engine shares: its workers, its text-line thread, its preprocessing and the languages it offers. */
export interface RecognitionSetup {
  readonly pool: TesseractReaders;
  readonly lineThread: TextLineThread;
  readonly preprocessing: TesseractPreprocessing;
  readonly languages: ReadonlyArray<OcrLanguage>;
}

/** One request's page: the upright image, the copies prepared from it and the readings made of them, each made once. */
interface Recognition extends RecognitionSetup {
  readonly signal: AbortSignal;
  readonly upright: DecodedImage;
  readonly prepare: (rotation: number, scale: number) => Promise<PreparedImage>;
  /** Straightening angle and enlargement for the upright page, measured before any read. */
  readonly layout: () => Promise<{ rotation: number; scale: number }>;
  /** A model's reading of a prepared image, made once. */
  readonly read: (model: ReadonlyArray<OcrLanguage>, image: PreparedImage) => Promise<Reading>;
  /** A reading made afresh, with or without the layout (blocks). */
  readonly readOnce: (model: ReadonlyArray<OcrLanguage>, image: PreparedImage, blocks?: boolean) => Promise<Reading>;
  readonly readings: Map<PreparedImage, Map<string, Promise<Reading>>>;
}

/** The prepared image in the encoding the readers take. */
/** Runs `job` with the reader reading its image as one line of text (PSM 7), then puts back the page layout analysis. */
const asOneLine = async <A>(reader: TesseractReader, job: () => Promise<A>): Promise<A> => {
  await reader.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE });
  try {
    return await job();
  } finally {
    await reader.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
  }
};

/** A request's page opened: decoded upright, its resolution read, nothing prepared or read yet. */
const openRecognition = async (engine: RecognitionSetup, request: OcrRequest, signal: AbortSignal): Promise<Recognition> => {
  const { pool, lineThread, preprocessing } = engine;
  const upright = await decodeUpright(request.image.bytes);
  const prepared = new Map<string, Promise<PreparedImage>>();
  const prepare = (rotation: number, scale: number) => {
    const key = `${rotation}@${scale}`;
    const image = prepared.get(key) ?? prepareImage(upright, { rotation, scale, grayscale: preprocessing.grayscale }, pool.imageFormat);
    prepared.set(key, image);
    return image;
  };
  let measuring: Promise<TextLines> | undefined;
  const measured = () => (measuring ??= measureTextLines(upright, lineThread.measure));
  const layout = async (): Promise<{ rotation: number; scale: number }> => {
    if (!preprocessing.deskew && !preprocessing.upscaleSmallText) return { rotation: 0, scale: 1 };
    const lines = await measured();
    const rotation = preprocessing.deskew ? straighteningRotation(lines) : 0;
    return { rotation, scale: preprocessing.upscaleSmallText ? upscaleFactor(upright, lines.lineHeight, upscaling) : 1 };
  };

  // The layout (blocks) costs a walk over every symbol, so it is asked for only when the format
  // shows it (a searchable PDF is written from the blocks too, by composition). Tesseract is told
  // the resolution the image states, as the CLI reads it from the file: the PNG it is handed
  // states none, and the 72 dpi Arabic handbook page, taken for 268, lost a line (13.08 % CER against 10.63).
  const output = { text: true, blocks: request.outputFormat !== "text" };
  const dpi = await statedResolution(request.image.bytes);
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
    const options: TesseractReadOptions = dpi === undefined ? {} : { user_defined_dpi: String(Math.round(dpi * image.scale)) };
    // A label of one line, read the way up it was measured, is read as one line (holdsOneLine).
    const oneLine = Math.abs(image.rotation) < 45 && holdsOneLine(await measured(), upright.height);
    const recognize = (worker: TesseractReader) => worker.recognize(image.bytes, options, { ...output, blocks });
    const { data: page } = await pool.withWorker(model, signal, (worker) => (oneLine ? asOneLine(worker, () => recognize(worker)) : recognize(worker)));
    return { languages: model, image, page, empty: page.text.trim() === "" };
  };
  return { ...engine, signal, upright, prepare, layout, read, readOnce, readings };
};

const better = (a: Reading, b: Reading) => (b.page.confidence > a.page.confidence ? b : a);
const asScriptReading = (reading: Reading) => ({ ...reading.page, language: reading.languages[0] ?? "eng", reading });
const betterOfScript = (a: Reading, b: Reading) => preferredOfScript(asScriptReading(a), asScriptReading(b)).reading;

/** OSD's view of the page: a quarter turn (0 unless asked to fix orientation), whether OSD is sure of it, the script. */
const orientationAndScript = async ({ pool, signal, preprocessing }: Recognition, image: PreparedImage) => {
  const { data } = await pool.withWorker("osd", signal, (worker) => worker.detect(image.bytes));
  return {
    rotation: preprocessing.fixOrientation ? (data.orientation_degrees ?? 0) % 360 : 0,
    sure: (data.orientation_confidence ?? 0) >= sureOrientationConfidence,
    script: scriptOfOsdName(data.script),
    scriptConfidence: data.script_confidence ?? 0,
  };
};
/** An unsure reading is tried again turned as OSD suggests, and the better one kept. */
const turnedIfBetter = async ({ read, prepare }: Recognition, reading: Reading, rotation: number): Promise<Reading> =>
  rotation === 0 || reading.empty || reading.page.confidence >= unsureConfidence
    ? reading
    : better(reading, await read(reading.languages, await prepare(rotation, 1)));

/** A page in the languages the request names. */
const readKnown = async (r: Recognition, model: ReadonlyArray<OcrLanguage>): Promise<Reading> => {
  const straightened = await r.layout();
  const first = await r.read(model, await r.prepare(straightened.rotation, straightened.scale));
  if (!r.preprocessing.fixOrientation || first.empty || first.page.confidence >= unsureConfidence) return first;
  return turnedIfBetter(r, first, (await orientationAndScript(r, await r.prepare(0, 1))).rotation);
};

/** The script of a label, where OSD on the image named none (see short-text-script.ts). */
const scriptOfShortText = async ({ pool, signal, languages, read }: Recognition, image: PreparedImage): Promise<OcrScript | undefined> => {
  const grid = await repeatedForOsd(await preparedPng(image));
  if (grid === undefined) return undefined;
  const { data } = await pool.withWorker("osd", signal, (worker) => worker.detect(grid));
  return scriptOfLabel(scriptOfOsdName(data.script), (script) =>
    readInLanguagesOf(script, autoCandidates(script, languages), async (language) => (await read([language], image)).page),
  );
};

/** The language of a second script on a page OSD named Latin unsurely (unsure-lines.ts); its English reading primes the cache. */
const secondScriptLanguage = async ({ pool, signal, languages, readOnce, readings }: Recognition, image: PreparedImage): Promise<OcrLanguage | undefined> => {
  const english = readOnce(["eng"], image, true);
  readings.set(image, new Map([...(readings.get(image) ?? []), ["eng", english]]));
  return secondLanguage(await preparedPng(image), unsureLines(pageBlocks((await english).page).flatMap((block) => block.lines)), {
    scriptOf: async (png) => scriptOfOsdName((await pool.withWorker("osd", signal, (worker) => worker.detect(png))).data.script),
    candidates: (script) => autoCandidates(script, languages),
    read: async (language, png) => (await pool.withWorker([language], signal, (worker) => worker.recognize(png))).data,
  });
};

/** A page in languages to be found: its script from OSD, then the languages of that script. */
const readAuto = async (r: Recognition): Promise<Reading> => {
  const { languages, read } = r;
  const osd = await orientationAndScript(r, await r.prepare(0, 1));
  const turned = osd.sure && osd.rotation !== 0;
  const image = turned ? await r.prepare(osd.rotation, 1) : await r.layout().then(({ rotation, scale }) => r.prepare(rotation, scale));
  const found = osd.script ?? (await scriptOfShortText(r, image));
  // The script OSD names settles which languages can read the page; each of that script's
  // usual languages reads it (the first turned both ways when OSD was unsure of the turn), the
  // most confident reading wins. Latin text then names its own language from its words.
  // A page in another script is read together with English (`hin+eng`), as the CLI is told
  // for a mixed page: headings, names and codes in Latin letters are read, not lost; Tesseract
  // tries the second model only on words the first reads badly. A label (OSD named no script) is
  // read in its own script alone: a word is in one, and each pair is one more worker to start.
  // A page OSD names Latin unsurely is checked for a second script (unsure-lines.ts).
  const latinUnsure = osd.script === "Latin" && osd.scriptConfidence < unsureLatinConfidence && languages.includes("eng");
  const second = latinUnsure ? await secondScriptLanguage(r, image) : undefined;
  if (second !== undefined) return read([second, "eng"], image);
  const script = found !== undefined && autoCandidates(found, languages).length > 0 ? found : "Latin";
  const withLatin = (language: OcrLanguage): ReadonlyArray<OcrLanguage> =>
    script !== "Latin" && osd.script !== undefined && languages.includes("eng") ? [language, "eng"] : [language];
  const [first, ...others] = autoCandidates(script, languages);
  if (first === undefined) throw new Error("no language to read with");
  let best = await read(withLatin(first), image);
  if (!turned) best = await turnedIfBetter(r, best, osd.rotation);
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

/** The reading as the port takes it: its blocks when the format needs them. */
const readingOf = (request: OcrRequest, upright: DecodedImage, reading: Reading): OcrReading => {
  const text = tidyOcrText(reading.page.text);
  // "auto" names the languages actually found in the text (hin+eng, or hin alone); a named request, those named.
  const used = request.language === "auto" ? languagesUsed(text, reading.languages) : reading.languages;
  const base = {
    text,
    language: used.join("+"),
    confidence: text === "" ? 0 : reading.page.confidence,
    page: { width: upright.width, height: upright.height },
  };
  if (request.outputFormat === "text") return base;
  return { ...base, blocks: withLanguages(blocksToDisplayed(reading.image, pageBlocks(reading.page)), used) };
};

/** One request read: its page opened, read in the languages named or found. */
export const recognizeRequest = async (engine: RecognitionSetup, request: OcrRequest, signal: AbortSignal): Promise<OcrReading> => {
  const recognition = await openRecognition(engine, request, signal);
  const reading = request.language === "auto" ? await readAuto(recognition) : await readKnown(recognition, request.language);
  return readingOf(request, recognition.upright, reading);
};
