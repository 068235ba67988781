import { Effect, Result } from "effect";
import { echo } from "../../domain/echo.ts";
import { DocumentReader, type OpenedDocument } from "../../ports/engines/document-reader.ts";
import {
  maxCombinedOcrLanguages,
  ocrAutoLanguage,
  OcrEngine,
  type OcrLanguage,
  ocrLanguageCatalogue,
  type OcrOutputFormat,
  ocrOutputFormats,
  type OcrResult,
  parseOcrLanguageRequest,
} from "../../ports/engines/ocr-engine.ts";
import { ImageTooLarge } from "../../ports/errors.ts";
import type { Principal } from "../access/authenticate.ts";
import { type FieldIssue, InvalidRequest } from "../errors.ts";
import { ServiceSettings, type ServiceSettingsShape } from "../settings.ts";
import { decodeImagePayload } from "./image-payload.ts";
import { readDocumentPages } from "./ocr-document-pages.ts";
import { documentResult, type OcrReading } from "./ocr-document-result.ts";
import { type StoredPdf, storeSearchablePdf } from "./ocr-searchable-pdf.ts";
import { entitle, type Processed, runPlanned } from "./run-transformation.ts";

export interface OcrInput {
  readonly image: string;
  /** Default "auto": the engine finds the script and language and reports the one it used; `eng+deu` reads several together. */
  readonly language?: string;
  /** Default "text". */
  readonly outputFormat?: string;
}

/** The languages a client may ask for with the configured engine, with name and script, for GET /ocr/languages. */
export const supportedOcrLanguages = Effect.map(
  OcrEngine,
  (engine): ReadonlyArray<{ readonly code: OcrLanguage | typeof ocrAutoLanguage; readonly name: string; readonly script: string }> => [
    { code: ocrAutoLanguage, name: "Automatic detection", script: "any" },
    ...engine.languages.map((code) => ({ code, ...ocrLanguageCatalogue[code] })),
  ],
);

const outputOf = (result: { readonly language: string; readonly text: string; readonly confidence: number }) => ({
  language: result.language,
  characters: String(result.text.length),
  confidence: String(Math.round(result.confidence)),
});

/** What a reading gives: the text in its format, and where its searchable PDF waits, if one was asked for. */
export type RecognizedText = OcrReading & { readonly stored: StoredPdf | undefined };

/** Whether the reading answers within the request or runs as a job (Prefer: respond-async). */
export type OcrRunsAs = "request" | "job";

/**
 * A request holds its connection open for every page (and proxies cut it at 60 s), a job does not,
 * so a request's documents are held to the smaller limit: 413 past it, before any quota is
 * reserved, naming the job's. The reader itself refuses what is over the job's (server-composition.ts).
 */
const withinRequestPageLimit = (document: OpenedDocument, settings: ServiceSettingsShape) => {
  const limit = settings.maxDocumentPages;
  if (document.pages <= limit) return Effect.void;
  const asJob =
    settings.maxJobDocumentPages > limit
      ? `; sent with Prefer: respond-async it runs as a job, which may have up to ${settings.maxJobDocumentPages} pages`
      : "";
  return Effect.fail(
    new ImageTooLarge({ message: `the ${document.format.toUpperCase()} document has ${document.pages} pages; the limit is ${limit} pages${asJob}` }),
  );
};

/** POST /ocr: read the text of an image, or of every page of a document, in the asked (or detected) language and format. */
export const planRecognizeText = (principal: Principal, input: OcrInput, runsAs: OcrRunsAs = "request") =>
  Effect.gen(function* () {
    const engine = yield* OcrEngine;
    const language = input.language ?? ocrAutoLanguage;
    const outputFormat = input.outputFormat ?? "text";
    const requested = parseOcrLanguageRequest(language);
    const problems: FieldIssue[] = [];
    if (requested === undefined || (requested !== ocrAutoLanguage && !requested.every((code) => engine.languages.includes(code)))) {
      problems.push({
        path: "language",
        message:
          `"${echo(language)}" is not supported; allowed: ${ocrAutoLanguage}, a language GET /ocr/languages lists, ` +
          `or up to ${maxCombinedOcrLanguages} of them joined by "+" (eng+deu)`,
      });
    }
    if (!(ocrOutputFormats as ReadonlyArray<string>).includes(outputFormat)) {
      problems.push({ path: "outputFormat", message: `"${echo(outputFormat)}" is not supported; allowed: ${ocrOutputFormats.join(", ")}` });
    }
    if (requested === undefined || problems.length > 0) {
      return yield* new InvalidRequest({ message: problems.map((p) => p.message).join("; "), details: problems });
    }

    const settings = yield* ServiceSettings;
    const reader = yield* DocumentReader;
    const request = { language: requested, outputFormat: outputFormat as OcrOutputFormat };
    const parameters = { language, outputFormat };

    // A document's pages are counted before its quota is reserved (one unit per page); an image,
    // or anything that is not a document, is decoded after its unit is reserved, as on every route.
    const entitled = yield* entitle(principal, "ocr");
    const decoded = yield* Effect.result(decodeImagePayload("image", input.image, settings.maxImageBytes));
    const document = Result.isSuccess(decoded) ? yield* reader.openDocument(decoded.success) : undefined;
    if (document !== undefined && runsAs === "request") yield* withinRequestPageLimit(document, settings);

    // An image, or every page of a document: one kind of work either way, billed by its units.
    const process = Effect.gen(function* () {
      if (document === undefined) {
        const bytes = Result.isSuccess(decoded) ? decoded.success : yield* Effect.fail(decoded.failure);
        const image = yield* reader.readImage(bytes);
        const result: OcrResult = yield* engine.recognize({ image, ...request });
        const { stored, output } = yield* storeSearchablePdf(result);
        const done: Processed<RecognizedText> = { value: { ...result, stored }, output: { ...outputOf(result), ...output } };
        return done;
      }
      // As many pages at once as the engine has workers, each taking its turn at the engine like
      // any request, so a long document shares the engines with others instead of holding them.
      const pages = yield* readDocumentPages(document, engine, request);
      const result = documentResult(outputFormat as OcrOutputFormat, pages);
      const { stored, output } = yield* storeSearchablePdf(result);
      const done: Processed<RecognizedText> = {
        value: { ...result, stored },
        output: { ...outputOf(result), ...output, format: document.format, pages: String(document.pages) },
      };
      return done;
    });
    const billed: Readonly<Record<string, string>> = document === undefined ? parameters : { ...parameters, pages: String(document.pages) };
    return { entitled, parameters: billed, process, units: document?.pages ?? 1 };
  });

export const recognizeText = (principal: Principal, input: OcrInput) => Effect.flatMap(planRecognizeText(principal, input), (plan) => runPlanned(plan));
