import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api";
import { TEMPLATES, templateTypes } from "../../../../domain/template-catalog/template-catalog.ts";
import { ApiKey, idempotencyHeader, TRANSFORMATION } from "../../api/api-security.ts";
import { EngineWork } from "../../api/engine-work.ts";
import { RequiresScope } from "../../api/key-scope.ts";
import { preferHeader, RespondsAsync } from "../../api/respond-async.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";
import { AcceptedJobData } from "../jobs/job-schemas.ts";
import { GenerateImageData, OcrData, VirtualTryOnData } from "./transformation-reply-schemas.ts";
import { GenerateBody, OcrBody, VirtualTryOnBody } from "./transformation-schemas.ts";

export const GenerateImageResponse = Success("GenerateImageReply", GenerateImageData);
export const VirtualTryOnResponse = Success("VirtualTryOnReply", VirtualTryOnData);
export const RecognizeTextResponse = Success("RecognizeTextReply", OcrData);
/** What `Prefer: respond-async` answers at once: the job that will do the work (docs/jobs.md). */
const AcceptedJobResponse = Success("AcceptedJobReply", AcceptedJobData)
  .pipe(HttpApiSchema.status(202))
  .annotate({ description: "Prefer: respond-async: the job, queued; Location names it (GET /jobs/{jobId}), and the quota is already reserved" });
const headers = { ...idempotencyHeader, ...preferHeader };
const JOB_JOINS = " With Prefer: respond-async, 202 with the job at once, after every check above and the quota's reservation (docs/jobs.md).";

/** The billable operations, each waiting on an engine; part of the API's definition (api-definition.ts). */
export const transformations = HttpApiGroup.make("transformations", { topLevel: true })
  .add(
    HttpApiEndpoint.post("generateImage", "/generate", {
      headers,
      payload: GenerateBody,
      success: [
        GenerateImageResponse.annotate({ description: "The transformed image, stored; resultUrl works without a key until expiresAt" }),
        AcceptedJobResponse,
      ],
      error: errorResponses("Transformation", TRANSFORMATION),
    })
      .annotate(EngineWork, "oneImage")
      .annotate(RespondsAsync, "generate")
      .annotate(RequiresScope, "generate")
      .annotate(OpenApi.Summary, "Apply a catalog template to an image")
      .annotate(
        OpenApi.Description,
        `Template types: ${templateTypes(TEMPLATES).join(", ")}. GET /templates lists every template with the plans that include it.${JOB_JOINS}`,
      ),
    HttpApiEndpoint.post("recognizeText", "/ocr", {
      headers,
      payload: OcrBody,
      success: [
        RecognizeTextResponse.annotate({ description: 'The text, with the format\'s own field; an image with no text gives text ""' }),
        AcceptedJobResponse,
      ],
      error: errorResponses("Transformation", [...TRANSFORMATION, "UnsupportedLanguage"]),
    })
      .annotate(EngineWork, "oneImage")
      .annotate(RespondsAsync, "ocr")
      .annotate(RequiresScope, "ocr")
      .annotate(OpenApi.Summary, "Read the text of an image or a document")
      .annotate(
        OpenApi.Description,
        "Images: JPEG, PNG, WebP, AVIF, GIF, TIFF, BMP, PNM (PBM, PGM, PPM). Documents: PDF and multi-page TIFF, answered with data.pages; " +
          "every page is one transformation, all reserved before work starts (not enough left: 429 QUOTA_EXCEEDED, nothing used); " +
          "more pages than MAX_DOCUMENT_PAGES (default 20), or MAX_JOB_DOCUMENT_PAGES (default 200) with Prefer: respond-async: 413; an encrypted, broken or scripted PDF: 422. " +
          "Pages are straightened, turned upright and small text enlarged before reading, where that measurably helps. " +
          "outputFormat pdf: a searchable PDF, each page the image as sent (turned upright) with its text invisible on top, word by word where it stands, " +
          "stored like every result and answered as data.resultUrl beside data.text; a document gives one PDF of all its pages." +
          JOB_JOINS,
      ),
    HttpApiEndpoint.post("virtualTryOn", "/virtual-tryon", {
      headers,
      payload: VirtualTryOnBody,
      success: [
        VirtualTryOnResponse.annotate({ description: "The composite, stored; settings echoes what was applied, defaults filled in" }),
        AcceptedJobResponse,
      ],
      error: errorResponses("TryOn", [...TRANSFORMATION, "UnusableTryOnInput"]),
    })
      .annotate(EngineWork, "twoImages")
      .annotate(RespondsAsync, "virtual-tryon")
      .annotate(RequiresScope, "virtual-tryon")
      .annotate(OpenApi.Summary, "Dress the person in the garment (pro and enterprise plans)")
      .annotate(
        OpenApi.Description,
        "A deterministic garment transfer: body keypoints and person segmentation find the torso, the garment is cut from its product shot, " +
          "warped onto shoulders and torso and composited. It cannot re-pose a body. Photos it cannot use get 422 with a code naming why, at no cost." +
          JOB_JOINS,
      ),
  )
  .middleware(ApiKey)
  .annotateMerge(
    OpenApi.annotations({ title: "Transformations", description: "Billable operations: each success is one transformation of the month's quota." }),
  );
