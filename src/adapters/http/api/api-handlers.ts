import { Effect, Option } from "effect";
import { getProfile } from "../../../application/account/profile.ts";
import { listAccountTemplates } from "../../../application/account-templates/account-templates.ts";
import { auditAccount } from "../../../application/audit/audit.ts";
import { parseAuditRange } from "../../../application/audit/audit-range.ts";
import { NotFound } from "../../../application/errors.ts";
import { chargeReceiptOf } from "../../../application/receipts/receipts.ts";
import { generate } from "../../../application/transformations/generate.ts";
import { ocrResponseData } from "../../../application/transformations/ocr-response-data.ts";
import { recognizeText, supportedOcrLanguages } from "../../../application/transformations/recognize-text.ts";
import { makeResultFormats } from "../../../application/transformations/result-formats.ts";
import type { Transformed } from "../../../application/transformations/run-transformation.ts";
import { virtualTryOn } from "../../../application/transformations/virtual-tryon.ts";
import { autoFormatRefusal } from "../../../domain/auto-format.ts";
import { templateCrop } from "../../../domain/crop-window.ts";
import { negotiatesFormat } from "../../../domain/negotiate-format.ts";
import { TEMPLATES } from "../../../domain/template-catalog/template-catalog.ts";
import { Clock } from "../../../ports/clock.ts";
import type { ResultUrlSigner } from "../../results/signed-result-url.ts";
import { InvalidSignature } from "../errors/protocol-errors.ts";
import { accountTemplateHandlers } from "../groups/account-templates/account-template-handlers.ts";
import { receiptHandlers } from "../groups/receipts/receipt-handlers.ts";
import type { ImageTransformationApi } from "./api-definition.ts";
import { ResultFormat } from "./api-schemas.ts";
import type { AppServices } from "./app-services.ts";
import type { Handlers } from "./mount.ts";
import { queryValue } from "./query-value.ts";

export interface ApiHandlerOptions {
  readonly resultUrls: ResultUrlSigner;
  /** Absolute origin of result URLs, e.g. https://api.example.com */
  readonly publicBaseUrl: string;
}

/**
 * What each operation of api-definition.ts does, by its name: the use case it runs with the request
 * the definition decoded, and the operation's `data` made of its value (encoded through the
 * operation's Schema by mount.ts).
 */
export const apiHandlers = ({ resultUrls, publicBaseUrl }: ApiHandlerOptions): Handlers<typeof ImageTransformationApi, AppServices> => {
  const resultFormats = makeResultFormats();
  const resultUrlFor = (resultId: string, expiresAt: Date) =>
    `${publicBaseUrl}/api/results/${encodeURIComponent(resultId)}?${resultUrls.sign(resultId, expiresAt)}`;
  /** A transformation whose result is stored: its value, with the signed URL that serves it. */
  const storedResultData = <V extends { readonly resultId: string; readonly expiresAt: Date }>({ requestId, value, processingTimeMs }: Transformed<V>) => ({
    ...value,
    requestId,
    resultUrl: resultUrlFor(value.resultId, value.expiresAt),
    expiresAt: value.expiresAt.toISOString(),
    processingTime: processingTimeMs,
  });

  /** A charged response's data, with the signed receipt of its charge. */
  const withReceipt = <T extends { readonly requestId: string }, D>(transformed: T, data: (transformed: T) => D) =>
    Effect.map(chargeReceiptOf(transformed.requestId), (receipt) => ({ ...data(transformed), receipt }));

  return {
    generateImage: ({ principal, payload }) =>
      Effect.flatMap(generate(principal, payload), (done) =>
        withReceipt(done, (transformed) => {
          const { results, ...data } = storedResultData(transformed);
          const variants = results?.map(({ resultId, expiresAt, ...result }) => ({
            ...result,
            resultId,
            resultUrl: resultUrlFor(resultId, expiresAt),
            expiresAt: expiresAt.toISOString(),
          }));
          return variants === undefined ? data : { ...data, results: variants };
        }),
      ),
    recognizeText: ({ principal, payload }) =>
      Effect.flatMap(recognizeText(principal, payload), (done) =>
        withReceipt(done, ({ requestId, value, processingTimeMs }) => {
          const { stored, ...data } = ocrResponseData(value, processingTimeMs);
          const pdf = stored === undefined ? {} : { resultUrl: resultUrlFor(stored.resultId, stored.expiresAt), expiresAt: stored.expiresAt.toISOString() };
          return { requestId, ...data, ...pdf };
        }),
      ),
    virtualTryOn: ({ principal, payload }) => Effect.flatMap(virtualTryOn(principal, payload), (done) => withReceipt(done, storedResultData)),
    listTemplates: ({ principal }) =>
      Effect.map(listAccountTemplates(principal), (own) => ({
        templates: [
          ...TEMPLATES.map((t) => ({
            template: t.template,
            templateType: t.templateType,
            description: t.description,
            output: t.output,
            plans: t.plans,
            crop: templateCrop(t),
            negotiatesFormat: negotiatesFormat(t.output.format),
            autoFormat: autoFormatRefusal(t) === undefined,
          })),
          ...own.map(({ templateId, name, version, updatedAt, design: { canvas } }) => ({
            own: true as const,
            id: templateId,
            template: name,
            templateType: "custom" as const,
            version,
            updatedAt,
            output: { width: canvas.width, height: canvas.height, format: canvas.format },
          })),
        ],
      })),
    listOcrLanguages: () => Effect.map(supportedOcrLanguages, (languages) => ({ languages })),
    getProfile: ({ principal }) => getProfile(principal),
    getResult: ({ params, query, querystring, accept }) =>
      Effect.gen(function* () {
        const named = query.format === undefined ? undefined : yield* queryValue(ResultFormat, "format", query.format);
        const now = (yield* Clock).now();
        const check = resultUrls.verify(params.resultId, querystring, now);
        if (check === "tampered") return yield* new InvalidSignature();
        const served =
          check === "ok" ? yield* resultFormats.serve(params.resultId, now, { ...(named && { named }), ...(accept && { accept }) }) : Option.none();
        if (Option.isNone(served)) return yield* new NotFound({ message: "The result does not exist or has expired." });
        const { result, negotiated } = served.value;
        const maxAge = Math.max(0, Math.floor((result.expiresAt.getTime() - now.getTime()) / 1000));
        const headers = { "Cache-Control": `private, max-age=${maxAge}`, ...(negotiated && { Vary: "Accept" }) };
        return { bytes: result.bytes, contentType: result.contentType, headers };
      }),
    ...receiptHandlers,
    ...accountTemplateHandlers,
    auditAccount: ({ params, query }) => Effect.flatMap(parseAuditRange(query.from, query.to), (range) => auditAccount(params.accountId, range)),
  };
};
