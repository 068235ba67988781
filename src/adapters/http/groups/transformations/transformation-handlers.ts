import { Effect } from "effect";
import { chargeReceiptOf } from "../../../../application/receipts/receipts.ts";
import { generate } from "../../../../application/transformations/generate.ts";
import { ocrResponseData } from "../../../../application/transformations/ocr-response-data.ts";
import { recognizeText } from "../../../../application/transformations/recognize-text.ts";
import type { Transformed } from "../../../../application/transformations/run-transformation.ts";
import { virtualTryOn } from "../../../../application/transformations/virtual-tryon.ts";
import type { ResultUrlSigner } from "../../../results/signed-result-url.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import type { transformations } from "./transformations-api.ts";

/**
 * The transformations (transformations-api.ts): the use case each runs with the decoded request, and
 * its `data`: the stored result behind a signed URL, and the signed receipt of its charge.
 */
export const transformationHandlers = ({
  resultUrls,
  publicBaseUrl,
}: {
  readonly resultUrls: ResultUrlSigner;
  /** Absolute origin of result URLs, e.g. https://api.example.com */
  readonly publicBaseUrl: string;
}): GroupHandlers<typeof transformations, AppServices> => {
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
  };
};
