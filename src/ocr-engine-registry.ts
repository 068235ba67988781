import type { Layer } from "effect";
import { PaddleOcrEngine } from "./adapters/ocr/paddle/paddle-ocr-engine.ts";
import { TesseractOcrEngine } from "./adapters/ocr/tesseract/tesseract-ocr-engine.ts";
import { ConfigError } from "./config-error.ts";
import { type OcrLanguage, ocrLanguageCatalogue } from "./ports/engines/ocr-languages.ts";
import type { OcrRecognizer } from "./ports/engines/ocr-recognizer.ts";
import type { DependencyUnavailable } from "./ports/errors.ts";
import { queuedOcrEngineLayer } from "./queued-ocr-engine.ts";

/**
 * Every OCR engine, in one place: `OCR_ENGINE`'s values, the variables only that engine reads and
 * their parsing, and its recognizer's layer. What every engine gets alike (its workers) comes from
 * the service's own settings, and what is done around every engine (line, turns, deadline) is put
 * around the chosen one here, once; an engine's own options stay in its entry.
 */
type Environment = Readonly<Record<string, string | undefined>>;

/** What every engine is given, whichever it is. */
export interface OcrEngineShared {
  readonly workers: number;
}

interface OcrEngineKind<S> {
  /** The variables read when OCR_ENGINE names this engine (docs/operations.md lists them). */
  readonly variables: ReadonlyArray<string>;
  /** The engine's own settings from them; a ConfigError names the variable that is wrong. */
  readonly fromEnvironment: (env: Environment) => S;
  readonly layer: (settings: S, shared: OcrEngineShared) => Layer.Layer<OcrRecognizer, DependencyUnavailable>;
}

const kind = <S>(definition: OcrEngineKind<S>): OcrEngineKind<S> => definition;

const given = (env: Environment, variable: string): string | undefined => (env[variable] === "" ? undefined : env[variable]);

/** OCR_WARM_LANGUAGES: comma-separated codes of the OCR catalogue ("eng,deu"), or none. */
const warmLanguagesFrom = (env: Environment): ReadonlyArray<OcrLanguage> => {
  const codes = given(env, "OCR_WARM_LANGUAGES")?.split(",") ?? [];
  const unknown = codes.filter((code) => !Object.hasOwn(ocrLanguageCatalogue, code));
  if (unknown.length > 0) throw new ConfigError(`OCR_WARM_LANGUAGES: unknown language ${unknown.join(", ")} (GET /api/ocr/languages lists them)`);
  return codes as ReadonlyArray<OcrLanguage>;
};

/** OCR_IDLE_MEMORY_MB: memory the idle workers may hold (least recently used stopped beyond it); default 256. */
const idleBudgetBytesFrom = (env: Environment): number => {
  const value = given(env, "OCR_IDLE_MEMORY_MB") ?? "256";
  if (!/^[1-9]\d*$/.test(value)) throw new ConfigError(`Invalid configuration: OCR_IDLE_MEMORY_MB: expected a positive whole number of MiB, got "${value}"`);
  return Number(value) * 2 ** 20;
};

interface TesseractSettings {
  /** Languages whose worker starts with the service; the others load on first use. */
  readonly warmLanguages: ReadonlyArray<OcrLanguage>;
  readonly idleBudgetBytes: number;
}

const tesseractSettings = (env: Environment): TesseractSettings => ({ warmLanguages: warmLanguagesFrom(env), idleBudgetBytes: idleBudgetBytesFrom(env) });

export const ocrEngineKinds = {
  /** Tesseract in WebAssembly (tesseract.js), every language: the default. */
  tesseract: kind<TesseractSettings>({
    variables: ["OCR_WARM_LANGUAGES", "OCR_IDLE_MEMORY_MB"],
    fromEnvironment: tesseractSettings,
    layer: (settings, shared) => TesseractOcrEngine.layer({ ...settings, ...shared, runtime: "wasm", models: "packaged" }),
  }),
  /** Tesseract's native CLI on the same models: the same readings, about twice as fast; needs Debian's `tesseract-ocr`. */
  "tesseract-native": kind<TesseractSettings & { readonly models: "packaged" | "system" }>({
    variables: ["OCR_WARM_LANGUAGES", "OCR_IDLE_MEMORY_MB", "OCR_TESSERACT_MODELS"],
    fromEnvironment: (env) => {
      const models = given(env, "OCR_TESSERACT_MODELS") ?? "packaged";
      if (models !== "packaged" && models !== "system")
        throw new ConfigError(`Invalid configuration: OCR_TESSERACT_MODELS: expected "packaged" | "system", got "${models}"`);
      return { ...tesseractSettings(env), models };
    },
    layer: (settings, shared) => TesseractOcrEngine.layer({ ...settings, ...shared, runtime: "native" }),
  }),
  /** PaddleOCR PP-OCRv4 on onnxruntime: eng and chi_sim. */
  paddle: kind<Record<string, never>>({
    variables: [],
    fromEnvironment: () => ({}),
    layer: (_settings, shared) => PaddleOcrEngine.layer(shared),
  }),
};

export type OcrEngineName = keyof typeof ocrEngineKinds;

type SettingsOf<T> = T extends OcrEngineKind<infer S> ? S : never;

/** The OCR engine configuration names: its name and its own settings. */
export type OcrEngineSelection = {
  readonly [K in OcrEngineName]: { readonly engine: K; readonly settings: SettingsOf<(typeof ocrEngineKinds)[K]> };
}[OcrEngineName];

export const ocrEngineNames = Object.keys(ocrEngineKinds) as [OcrEngineName, ...Array<OcrEngineName>];

export const selectOcrEngine = (engine: OcrEngineName, env: Environment): OcrEngineSelection =>
  ({ engine, settings: ocrEngineKinds[engine].fromEnvironment(env) }) as OcrEngineSelection;

/** The service's OCR engine: the one a selection names (its entry takes the settings it made) behind the capacity every engine has. */
export const ocrEngineLayerFor = (selection: OcrEngineSelection, shared: OcrEngineShared & { readonly deadlineMs: number }) =>
  queuedOcrEngineLayer({ deadlineMs: shared.deadlineMs })(
    (ocrEngineKinds[selection.engine] as OcrEngineKind<OcrEngineSelection["settings"]>).layer(selection.settings, { workers: shared.workers }),
  );
