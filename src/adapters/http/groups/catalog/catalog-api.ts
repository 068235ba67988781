import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api";
import { ApiKey, KEYED } from "../../api/api-security.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";
import { OcrLanguagesData, TemplatesData } from "./catalog-schemas.ts";

export const OcrLanguagesResponse = Success("OcrLanguagesReply", OcrLanguagesData);
export const TemplatesResponse = Success("TemplatesReply", TemplatesData);

/** What the operations accept: the templates and the OCR languages; part of the API's definition (api-definition.ts). */
export const catalog = HttpApiGroup.make("catalog", { topLevel: true })
  .add(
    HttpApiEndpoint.get("listTemplates", "/templates", {
      success: TemplatesResponse.annotate({ description: "Every template with its type, output and plans" }),
      error: errorResponses("Keyed", KEYED),
    })
      .annotate(OpenApi.Summary, "The template catalog")
      .annotate(OpenApi.Description, "Every template POST /generate accepts: its type, what it does, the output it makes and the plans that include it."),
    HttpApiEndpoint.get("listOcrLanguages", "/ocr/languages", {
      success: OcrLanguagesResponse.annotate({ description: "auto plus each language code with its name" }),
      error: errorResponses("Keyed", KEYED),
    })
      .annotate(OpenApi.Summary, "The OCR languages of the configured engine")
      .annotate(OpenApi.Description, "The values POST /ocr accepts as language: auto (detected, then reported) and each language the configured engine reads."),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Catalog", description: "What the operations accept." }));
