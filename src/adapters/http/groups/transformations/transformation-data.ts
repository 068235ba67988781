import { Effect } from "effect";
import { chargeReceiptOf } from "../../../../application/receipts/receipts.ts";
import type { GeneratedResult } from "../../../../application/transformations/generated-result.ts";
import { ocrResponseData } from "../../../../application/transformations/ocr-response-data.ts";
import type { RecognizedText } from "../../../../application/transformations/recognize-text.ts";
import type { Transformed } from "../../../../application/transformations/run-transformation.ts";
import type { TryOnOutcome } from "../../../../application/transformations/virtual-tryon.ts";
import type { ResultUrlSigner } from "../../../results/signed-result-url.ts";

export interface ResultUrlOptions {
  readonly resultUrls: ResultUrlSigner;
  /** Absolute origin of result URLs, e.g. https://api.example.com */
  readonly publicBaseUrl: string;
}

/**
 * Each transformation's `data` made of what its use case did: the stored result behind a signed
 * URL, and the signed receipt of its charge. The synchronous routes answer with it, and a job
 * keeps it as its result, the same to the byte.
 */
export const transformationData = ({ resultUrls, publicBaseUrl }: ResultUrlOptions) => {
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
    generate: (done: Transformed<GeneratedResult>) =>
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
    ocr: (done: Transformed<RecognizedText>) =>
      withReceipt(done, ({ requestId, value, processingTimeMs }) => {
        const { stored, ...data } = ocrResponseData(value, processingTimeMs);
        const pdf = stored === undefined ? {} : { resultUrl: resultUrlFor(stored.resultId, stored.expiresAt), expiresAt: stored.expiresAt.toISOString() };
        return { requestId, ...data, ...pdf };
      }),
    "virtual-tryon": (done: Transformed<TryOnOutcome>) => withReceipt(done, storedResultData),
  };
};
