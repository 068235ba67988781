import { createRequire } from "node:module";
import path from "node:path";
import { OEM, PSM, type WorkerOptions } from "tesseract.js";
import type { OcrLanguage } from "../../../ports/ocr-engine.ts";

/**
 * Where tesseract.js finds its code and models: all inside node_modules, never a CDN.
 * - traineddata: the `4.0.0_best_int` folder of each `@tesseract.js-data/<lang>` package (LSTM
 *   only, integer weights: the quick variant), read gzipped, never cached to disk;
 * - the orientation-and-script model `osd` needs the legacy engine, so its package's `4.0.0`
 *   folder and the legacy core;
 * - the worker script is the package's own Node script, which `require`s `tesseract.js-core`
 *   from node_modules (in Node `corePath` is not consulted).
 */
export type TesseractModel = OcrLanguage | "osd";

const require = createRequire(import.meta.url);

const packageFolder = (model: TesseractModel) => path.dirname(require.resolve(`@tesseract.js-data/${model}/package.json`));

const workerPath = require.resolve("tesseract.js/src/worker-script/node/index.js");

export interface TesseractWorkerSetup {
  readonly oem: OEM;
  readonly options: Partial<WorkerOptions>;
  /** Read while the model loads: Tesseract's diagnostics go to a null file, not the service's stdout. */
  readonly initConfig: Readonly<Record<string, string>>;
  /** Set once the model is loaded, over the model's own configuration. */
  readonly parameters: Readonly<Record<string, string>>;
}

/**
 * - PSM 3 (automatic layout analysis, no OSD) is the CLI's default; tesseract.js starts in
 *   PSM 6 (one uniform block), which reads tables and columns as noise.
 * - The CJK models of `4.0.0_best_int` turn on `textord_use_cjk_fp_model` (Debian's models do
 *   not), which cuts Japanese paragraphs into fragments read out of order.
 */
const parametersFor = (model: TesseractModel): Record<string, string> => ({
  tessedit_pageseg_mode: PSM.AUTO,
  ...(model === "jpn" || model === "chi_sim" ? { textord_use_cjk_fp_model: "0" } : {}),
});

export const workerSetupFor = (model: TesseractModel): TesseractWorkerSetup => {
  const legacy = model === "osd";
  return {
    oem: legacy ? OEM.TESSERACT_ONLY : OEM.LSTM_ONLY,
    options: {
      langPath: path.join(packageFolder(model), legacy ? "4.0.0" : "4.0.0_best_int"),
      gzip: true,
      cacheMethod: "none",
      workerPath,
      legacyCore: legacy,
      legacyLang: legacy,
      // Without a handler tesseract.js rethrows a failed job inside its message listener, which
      // would crash the process; the job's own promise still rejects and is handled there.
      errorHandler: () => undefined,
    },
    initConfig: { debug_file: "/dev/null" },
    parameters: parametersFor(model),
  };
};
