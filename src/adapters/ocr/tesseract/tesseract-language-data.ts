import { existsSync } from "node:fs";
import { access, mkdtemp, open, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { OEM, PSM, type WorkerOptions } from "tesseract.js";
import { type OcrLanguage, ocrLanguages } from "../../../ports/engines/ocr-engine.ts";

/**
 * Where tesseract.js finds its code and models: all inside node_modules, never a CDN.
 * - traineddata: the `4.0.0_best_int` folder of each `@tesseract.js-data/<lang>` package (LSTM
 *   only, integer weights: the quick variant), read gzipped, never cached to disk; a package
 *   without that folder (`tgl`) has its `4.0.0` model read instead, which holds an LSTM model
 *   too. A worker of one language reads its package's folder; tesseract.js reads languages
 *   read together (`eng+deu`) from one folder, so those come from a private folder of links to
 *   the packages' files, made once per process;
 * - the orientation-and-script model `osd` needs the legacy engine, so its package's `4.0.0`
 *   folder and the legacy core;
 * - the worker script is the package's own Node script, which `require`s `tesseract.js-core`
 *   from node_modules (in Node `corePath` is not consulted).
 */
export type TesseractModel = ReadonlyArray<OcrLanguage> | "osd";

/** One key per worker kind: `osd`, `eng`, `eng+deu`. */
export const modelKey = (model: TesseractModel): string => (model === "osd" ? "osd" : model.join("+"));

const require = createRequire(import.meta.url);

const packageFolder = (code: OcrLanguage | "osd") => path.dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
/** Looked up once per language: it is asked at every worker start. */
const dataFolders = new Map<OcrLanguage | "osd", string>();
const dataFolder = (code: OcrLanguage | "osd") => {
  let folder = dataFolders.get(code);
  if (folder === undefined) {
    const quick = path.join(packageFolder(code), "4.0.0_best_int");
    folder = code !== "osd" && existsSync(quick) ? quick : path.join(packageFolder(code), "4.0.0");
    dataFolders.set(code, folder);
  }
  return folder;
};
/** The gzipped model of `code` in its npm package. */
export const dataFile = (code: OcrLanguage | "osd") => path.join(dataFolder(code), `${code}.traineddata.gz`);

/**
 * The models of `codes` that are not where they are read from. tesseract.js never settles a
 * worker whose model is missing (its start waits forever), so a worker is started only for models
 * that are there, and the service checks every language it offers when it starts.
 */
export const missingModels = async (codes: ReadonlyArray<OcrLanguage | "osd">): Promise<ReadonlyArray<string>> => {
  const missing = await Promise.all(
    codes.map(async (code) => {
      try {
        await access(dataFile(code));
        return undefined;
      } catch {
        return code;
      }
    }),
  );
  return missing.filter((code) => code !== undefined);
};

const workerPath = require.resolve("tesseract.js/src/worker-script/node/index.js");

export interface TesseractWorkerSetup {
  readonly langs: string;
  readonly oem: OEM;
  readonly options: Partial<WorkerOptions>;
  /** Read while the model loads: Tesseract's diagnostics go to a null file, not the service's stdout. */
  readonly initConfig: Readonly<Record<string, string>>;
  /** Set once the model is loaded, over the model's own configuration. */
  readonly parameters: Readonly<Record<string, string>>;
}

const cjk: ReadonlyArray<OcrLanguage> = ["jpn", "chi_sim", "chi_tra", "kor"];

/**
 * - PSM 3 (automatic layout analysis, no OSD) is the CLI's default; tesseract.js starts in
 *   PSM 6 (one uniform block), which reads tables and columns as noise.
 * - The CJK models of `4.0.0_best_int` turn on `textord_use_cjk_fp_model` (Debian's models do
 *   not), which cuts paragraphs into fragments read out of order.
 */
export const parametersFor = (model: TesseractModel): Record<string, string> => ({
  tessedit_pageseg_mode: PSM.AUTO,
  ...(model !== "osd" && model.some((language) => cjk.includes(language)) ? { textord_use_cjk_fp_model: "0" } : {}),
});

export const workerSetupFor = async (model: TesseractModel): Promise<TesseractWorkerSetup> => {
  const legacy = model === "osd";
  const codes: ReadonlyArray<OcrLanguage | "osd"> = legacy ? ["osd"] : model;
  const single = codes.length === 1 ? codes[0] : undefined;
  return {
    langs: codes.join("+"),
    oem: legacy ? OEM.TESSERACT_ONLY : OEM.LSTM_ONLY,
    options: {
      langPath: single === undefined ? await combinedFolder() : dataFolder(single),
      gzip: true,
      cacheMethod: "none",
      workerPath,
      legacyCore: legacy,
      legacyLang: legacy,
    },
    initConfig: { debug_file: "/dev/null" },
    parameters: parametersFor(model),
  };
};

let combined: Promise<string> | undefined;
/** A folder (in the system's temporary folder) linking `<code>.traineddata.gz` to each language's package file. */
const combinedFolder = (): Promise<string> => {
  combined ??= (async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ocr-languages-"));
    await Promise.all(ocrLanguages.map((code) => symlink(dataFile(code), path.join(folder, `${code}.traineddata.gz`))));
    return folder;
  })();
  return combined;
};

/**
 * What a worker of `model` is expected to hold, in bytes: its thread (a V8 isolate), the
 * WebAssembly core and its heap, plus the unpacked models (the gzip trailer says their size),
 * which the budget of idle workers is counted in. Measured as the process's RSS with 1 to 7 idle
 * workers of 20 languages (Latin, Cyrillic, Greek, CJK): ~60 MiB a worker beside about twice its
 * model's size (an estimate of 30 MiB let a 256 MiB budget hold 7 workers, ~460 MiB).
 */
export const estimatedWorkerBytes = async (model: TesseractModel): Promise<number> => {
  const codes: ReadonlyArray<OcrLanguage | "osd"> = model === "osd" ? ["osd"] : model;
  const sizes = await Promise.all(codes.map(unpackedSize));
  return coreBytes + modelFactor * sizes.reduce((sum, size) => sum + size, 0);
};
const coreBytes = 60 * 2 ** 20;
const modelFactor = 2;

/** The size of `code`'s model unpacked, from its gzip trailer. */
export const unpackedSize = async (code: OcrLanguage | "osd"): Promise<number> => {
  const file = await open(dataFile(code));
  try {
    const { size } = await file.stat();
    const trailer = Buffer.alloc(4);
    await file.read(trailer, 0, 4, size - 4);
    return trailer.readUInt32LE(0);
  } finally {
    await file.close();
  }
};
