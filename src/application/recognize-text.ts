import { Effect } from "effect";
import { ImageInspector } from "../ports/image-inspector.ts";
import { OcrEngine, ocrAutoLanguage, ocrLanguageNames, ocrOutputFormats, type OcrLanguageRequest, type OcrOutputFormat, type OcrResult } from "../ports/ocr-engine.ts";
import type { Principal } from "./authenticate.ts";
import { InvalidRequest, type FieldIssue } from "./errors.ts";
import { decodeImagePayload } from "./image-payload.ts";
import { runTransformation } from "./run-transformation.ts";
import { ServiceSettings } from "./settings.ts";

export interface OcrInput {
  readonly image: string;
  /** Default "auto": the engine finds the script and language and reports the one it used. */
  readonly language?: string;
  /** Default "text". */
  readonly outputFormat?: string;
}

/** The languages a client may ask for with the configured engine, for GET /ocr/languages. */
export const supportedOcrLanguages = Effect.map(OcrEngine, (engine) => [
  { code: ocrAutoLanguage, name: "Automatic detection" },
  ...engine.languages.map((code) => ({ code, name: ocrLanguageNames[code] })),
]);

/** POST /ocr: read the text of an image in the asked (or detected) language and format. */
export const recognizeText = (principal: Principal, input: OcrInput) =>
  Effect.gen(function* () {
    const engine = yield* OcrEngine;
    const language = input.language ?? ocrAutoLanguage;
    const outputFormat = input.outputFormat ?? "text";
    const allowedLanguages: ReadonlyArray<string> = [ocrAutoLanguage, ...engine.languages];
    const problems: FieldIssue[] = [];
    if (!allowedLanguages.includes(language)) {
      problems.push({ path: "language", message: `"${language}" is not supported; allowed: ${allowedLanguages.join(", ")}` });
    }
    if (!(ocrOutputFormats as ReadonlyArray<string>).includes(outputFormat)) {
      problems.push({ path: "outputFormat", message: `"${outputFormat}" is not supported; allowed: ${ocrOutputFormats.join(", ")}` });
    }
    if (problems.length > 0) return yield* new InvalidRequest({ message: problems.map((p) => p.message).join("; "), details: problems });

    const settings = yield* ServiceSettings;
    const process = Effect.gen(function* () {
      const image = yield* (yield* ImageInspector).inspect(yield* decodeImagePayload("image", input.image, settings.maxImageBytes));
      const result: OcrResult = yield* engine.recognize({
        image,
        language: language as OcrLanguageRequest,
        outputFormat: outputFormat as OcrOutputFormat,
      });
      return { value: result, output: { language: result.language, characters: String(result.text.length), confidence: String(Math.round(result.confidence)) } };
    });
    return yield* runTransformation(principal, "ocr", { language, outputFormat }, process);
  });
