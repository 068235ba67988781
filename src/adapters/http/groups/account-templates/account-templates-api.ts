import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api";
import { PLANS } from "../../../../domain/plan.ts";
import { ApiKey, idempotencyHeader, KEYED, POSTED } from "../../api/api-security.ts";
import { EngineWork } from "../../api/engine-work.ts";
import { RequiresScope } from "../../api/key-scope.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";
import type { ApiErrorTag } from "../../errors/error-catalog.ts";
import { AccountTemplateData, DeletedTemplateData, TemplateBody, TemplateFontsData, TemplateId } from "./account-template-schemas.ts";

export const CreatedTemplateResponse = Success("CreatedAccountTemplateReply", AccountTemplateData);
export const AccountTemplateResponse = Success("AccountTemplateReply", AccountTemplateData);
export const RevisedTemplateResponse = Success("RevisedAccountTemplateReply", AccountTemplateData);
export const DeletedTemplateResponse = Success("DeletedAccountTemplateReply", DeletedTemplateData);
export const TemplateFontsResponse = Success("TemplateFontsReply", TemplateFontsData);

const limits = `free ${PLANS.free.accountTemplates}, pro ${PLANS.pro.accountTemplates}, enterprise ${PLANS.enterprise.accountTemplates ?? "unlimited"}`;
/** A body is checked whole, its images decoded and the design drawn once, before it is kept; a name taken is 409. */
const KEPT: ReadonlyArray<ApiErrorTag> = ["InsufficientPermissions", "ImageTooLarge", "InvalidImage", "EngineBusy", "EngineTimeout", "CommandRejected"];
/** A PUT: a JSON body like a POST's, without an Idempotency-Key (a PUT is idempotent by itself). */
const PUT: ReadonlyArray<ApiErrorTag> = [...KEYED, "HttpsRequired", "InvalidRequest", "UnsupportedMediaType", "BodyTooLarge"];
const params = { id: TemplateId };

/**
 * The routes of an account's own templates (issue 27), part of the API's definition
 * (api-definition.ts). Each template belongs to the account whose key made it; to any other it
 * does not exist (404).
 */
export const accountTemplates = HttpApiGroup.make("accountTemplates", { topLevel: true })
  .add(
    HttpApiEndpoint.post("createTemplate", "/templates", {
      headers: idempotencyHeader,
      payload: TemplateBody,
      success: CreatedTemplateResponse.pipe(HttpApiSchema.status(201)).annotate({ description: "The template as kept, at version 1" }),
      error: errorResponses("CreateTemplate", [...POSTED, ...KEPT, "TemplateLimitReached"]),
    })
      .annotate(EngineWork, "oneImage")
      .annotate(RequiresScope, "templates")
      .annotate(OpenApi.Summary, "Make a template of your own: a canvas with photo, text, image and shape layers")
      .annotate(
        OpenApi.Description,
        `Templates per account: ${limits} (403 TEMPLATE_LIMIT_REACHED). Every broken rule is a 400 with details; an SVG or undecodable image 422 INVALID_IMAGE. ` +
          "POST /generate with templateType custom and template set to its name or id draws it.",
      ),
    // Before /templates/:id, which would otherwise take "fonts" for a template's name (a name no template may have).
    HttpApiEndpoint.get("listTemplateFonts", "/templates/fonts", {
      success: TemplateFontsResponse.annotate({ description: "The font families a text layer may name, with the scripts each draws" }),
      error: errorResponses("Keyed", KEYED),
    })
      .annotate(OpenApi.Summary, "The fonts of templates' text layers")
      .annotate(
        OpenApi.Description,
        "The values a text layer's font may take; any other is a 400. A character the family lacks (Arabic, Hebrew, Chinese in a Latin family) " +
          "is drawn from another family of the list. Emoji are refused (400, naming each): no colour emoji font is installed.",
      ),
    HttpApiEndpoint.get("getTemplate", "/templates/:id", {
      params,
      success: AccountTemplateResponse.annotate({ description: "The template at its newest version" }),
      error: errorResponses("AccountTemplate", [...KEYED, "NotFound"]),
    })
      .annotate(OpenApi.Summary, "One of your templates")
      .annotate(OpenApi.Description, "By id or name; another account's template is not found (404)."),
    HttpApiEndpoint.put("reviseTemplate", "/templates/:id", {
      params,
      payload: TemplateBody,
      success: RevisedTemplateResponse.annotate({ description: "The template at its new version" }),
      error: errorResponses("ReviseTemplate", [...PUT, ...KEPT, "NotFound"]),
    })
      .annotate(EngineWork, "oneImage")
      .annotate(RequiresScope, "templates")
      .annotate(OpenApi.Summary, "Replace one of your templates with a new version")
      .annotate(OpenApi.Description, "The whole body, checked as on POST; results already made keep the version they were made with."),
    HttpApiEndpoint.delete("deleteTemplate", "/templates/:id", {
      params,
      success: DeletedTemplateResponse.annotate({ description: "The template deleted" }),
      error: errorResponses("DeleteTemplate", [...KEYED, "HttpsRequired", "NotFound", "InsufficientPermissions"]),
    })
      .annotate(RequiresScope, "templates")
      .annotate(OpenApi.Summary, "Delete one of your templates")
      .annotate(OpenApi.Description, "Frees its place under the plan's limit; results already made stay until they expire."),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Your templates", description: "Designs of the account's own, drawn by POST /generate." }));
