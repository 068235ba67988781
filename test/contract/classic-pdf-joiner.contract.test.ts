import { TesseractOcrEngine } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { ClassicPdfJoinerLive } from "../../src/adapters/pdf/classic-pdf-joiner.ts";
import { queuedOcrEngineLayer } from "../../src/queued-ocr-engine.ts";
import { pdfJoinerContract } from "./support/pdf-joiner-contract.ts";

// The pages are tesseract.js's, the engine that writes PDFs.
pdfJoinerContract(
  "classic cross-reference joiner",
  () => ClassicPdfJoinerLive,
  () => queuedOcrEngineLayer()(TesseractOcrEngine.layer({ workers: 1, languages: ["eng"], warmLanguages: ["eng"] })),
);
