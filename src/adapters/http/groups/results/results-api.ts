import { Schema } from "effect";
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api";
import { errorResponses } from "../../errors/documented-errors.ts";
import { ResultFormat } from "./result-schemas.ts";

const resultBytes = (contentType: string) => Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType }));

/** Stored results, served through their signed URLs without a key; part of the API's definition (api-definition.ts). */
export const results = HttpApiGroup.make("results", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getResult", "/results/:resultId", {
      params: { resultId: Schema.String.annotate({ identifier: "ResultId" }) },
      query: {
        expires: Schema.String.annotate({ identifier: "ResultUrlExpiry" }),
        signature: Schema.String.annotate({ identifier: "ResultUrlSignature" }),
        format: Schema.optionalKey(ResultFormat),
      },
      success: [resultBytes("image/jpeg"), resultBytes("image/png"), resultBytes("image/webp"), resultBytes("image/avif"), resultBytes("application/pdf")],
      error: errorResponses("Result", ["InvalidRequest", "InvalidSignature", "NotFound", "EngineBusy", "EngineTimeout", "DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "A stored result, through its signed URL (no key needed)")
      .annotate(
        OpenApi.Description,
        "The URL comes from resultUrl; it works until expiresAt. A JPEG result (GET /templates: negotiatesFormat) is served as AVIF, WebP or " +
          "JPEG, whichever the Accept header weighs highest (AVIF and WebP only when named; ties: AVIF, then WebP, then JPEG), with Vary: Accept. " +
          "Other results keep their format. Adding format= to the URL (outside the signature) picks the format instead, for any image result (a searchable PDF is always served as it is). " +
          "Each format is made once, on its first fetch, and kept until expiresAt.",
      ),
  )
  .annotateMerge(OpenApi.annotations({ title: "Results", description: "Stored results behind signed URLs." }));
