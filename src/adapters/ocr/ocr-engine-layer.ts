import type { Layer } from "effect";
import type { OcrEngine } from "../../ports/engines/ocr-engine.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { PaddleOcrEngine, type PaddleOcrEngineOptions } from "./paddle/paddle-ocr-engine.ts";
import { TesseractOcrEngine, type TesseractOcrEngineOptions } from "./tesseract/tesseract-ocr-engine.ts";

/** The OCR engine named by configuration: tesseract.js (default, all languages) or PaddleOCR (eng, chi_sim). */
export type OcrEngineChoice = ({ readonly engine: "tesseract" } & TesseractOcrEngineOptions) | ({ readonly engine: "paddle" } & PaddleOcrEngineOptions);

export const ocrEngineLayer = (choice: OcrEngineChoice): Layer.Layer<OcrEngine, DependencyUnavailable> => {
  const { engine, ...options } = choice;
  return engine === "paddle" ? PaddleOcrEngine.layer(options) : TesseractOcrEngine.layer(options);
};
