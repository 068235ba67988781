import { TesseractOcrEngine, type TesseractOcrEngineOptions } from "../../src/adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import type { OcrLanguage } from "../../src/ports/engines/ocr-engine.ts";
import { ocrEngineContract, type OcrEngineUnderContract } from "./support/ocr-engine-contract.ts";

const oneWorker = (runtime: "wasm" | "native") => () =>
  TesseractOcrEngine.layer({ workers: 1, runtime, languages: ["eng"], warmLanguages: ["eng"] } satisfies TesseractOcrEngineOptions);
/** The languages read below start with the engine, so that each case times reading, not loading. */
const warm: ReadonlyArray<OcrLanguage> = ["eng", "deu", "fra", "spa", "ita", "por", "nld"];
const autoLanguages: OcrEngineUnderContract["autoLanguages"] = ["eng", "deu", "fra", "spa", "ita", "por", "nld", "chi_sim", "jpn", "ara"];

// Loading on first use is driven end to end in test/e2e/ocr.e2e.test.ts.
ocrEngineContract({
  name: "tesseract.js",
  layer: () => TesseractOcrEngine.layer({ warmLanguages: warm }),
  oneWorkerLayer: oneWorker("wasm"),
  autoLanguages,
});

// The same models read by the system's CLI (tools/system-packages/ensure.sh installs it). "auto"
// is the same code over the same models: a Latin pair, the Han pair and a right-to-left script
// name it here, the other six Latin languages once above (CI's time: ~12 s).
ocrEngineContract({
  name: "tesseract (native CLI)",
  layer: () => TesseractOcrEngine.layer({ runtime: "native", warmLanguages: warm }),
  oneWorkerLayer: oneWorker("native"),
  autoLanguages: ["eng", "deu", "chi_sim", "jpn", "ara"],
});
