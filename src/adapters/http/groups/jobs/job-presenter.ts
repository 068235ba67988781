import { Cause, Effect, Layer, Schema } from "effect";
import { JobPresenter } from "../../../../application/jobs/job-operations.ts";
import type { GeneratedResult } from "../../../../application/transformations/generated-result.ts";
import type { RecognizedText } from "../../../../application/transformations/recognize-text.ts";
import type { Transformed } from "../../../../application/transformations/run-transformation.ts";
import type { TryOnOutcome } from "../../../../application/transformations/virtual-tryon.ts";
import { type ApiError, ERROR_CATALOG, errorResponseOfCause, INTERNAL_ERROR } from "../../errors/error-catalog.ts";
import { type ResultUrlOptions, transformationData } from "../transformations/transformation-data.ts";
import { GenerateImageResponse, RecognizeTextResponse, VirtualTryOnResponse } from "../transformations/transformations-api.ts";

const isApiError = (error: unknown): error is ApiError =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" && error._tag in ERROR_CATALOG;

/**
 * What a job keeps as its outcome, made as the synchronous routes make theirs: the operation's
 * `data` encoded through the same Schema the route answers with, and a failure as the error body
 * states it (code and message; an unexpected one as the internal error, its cause in the log).
 */
export const jobPresenterLayer = (options: ResultUrlOptions) => {
  const data = transformationData(options);
  const encoded = <S extends Schema.Top>(response: S, value: unknown) =>
    Effect.map(
      Schema.encodeUnknownEffect(response as unknown as Schema.Codec<{ readonly data: object }, { readonly data: object }>)({ success: true, data: value }),
      (body) => body.data,
    );
  return Layer.succeed(JobPresenter)({
    present: (operation, transformed) => {
      switch (operation) {
        case "generate":
          return Effect.flatMap(data.generate(transformed as Transformed<GeneratedResult>), (value) => encoded(GenerateImageResponse, value));
        case "ocr":
          return Effect.flatMap(data.ocr(transformed as Transformed<RecognizedText>), (value) => encoded(RecognizeTextResponse, value));
        default:
          return Effect.flatMap(data["virtual-tryon"](transformed as Transformed<TryOnOutcome>), (value) => encoded(VirtualTryOnResponse, value));
      }
    },
    failure: (error) => {
      const { code, message } = isApiError(error) ? errorResponseOfCause(Cause.fail(error)) : INTERNAL_ERROR;
      return { code, message };
    },
  });
};
