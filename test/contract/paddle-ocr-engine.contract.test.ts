import { PaddleOcrEngine, type PaddleOcrEngineOptions } from "../../src/adapters/ocr/paddle/paddle-ocr-engine.ts";
import { ocrEngineContract } from "./support/ocr-engine-contract.ts";

ocrEngineContract({
  name: "PaddleOCR (onnxruntime)",
  layer: () => PaddleOcrEngine.layer(),
  oneWorkerLayer: () => PaddleOcrEngine.layer({ workers: 1, threadsPerWorker: 1 } satisfies PaddleOcrEngineOptions),
  autoLanguages: ["eng", "chi_sim"],
});
