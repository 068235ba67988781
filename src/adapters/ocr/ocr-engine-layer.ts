import type { Layer } from "effect";
import type { OcrEngine } from "../../ports/engines/ocr-engine.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { PaddleOcrEngine, type PaddleOcrEngineOptions } from "./paddle/paddle-ocr-engine.ts";
import { TesseractOcrEngine, type TesseractOcrEngineOptions } from "./tesseract/tesseract-ocr-engine.ts";

/**
 * The OCR engine named by configuration: Tesseract in WebAssembly (tesseract.js: default, all
 * languages), Tesseract's native CLI on the same models (`tesseract-native`: the same readings,
 * about twice as fast, needs Debian's `tesseract-ocr`) or PaddleOCR (eng, chi_sim).
 */
export type OcrEngineChoice =
  | ({ readonly engine: "tesseract" | "tesseract-native" } & Omit<TesseractOcrEngineOptions, "runtime">)
  | ({ readonly engine: "paddle" } & PaddleOcrEngineOptions);

export const ocrEngineLayer = (choice: OcrEngineChoice): Layer.Layer<OcrEngine, DependencyUnavailable> => {
  const { engine, ...options } = choice;
  if (engine === "paddle") return PaddleOcrEngine.layer(options);
  return TesseractOcrEngine.layer(engine === "tesseract-native" ? { ...options, runtime: "native" } : { ...options, runtime: "wasm", models: "packaged" });
};
