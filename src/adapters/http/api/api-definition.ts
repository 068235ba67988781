import { Schema } from "effect";
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api";
import { AuditReportData } from "../../../application/audit/audit-report.ts";
import { TEMPLATES, templateTypes } from "../../../domain/template-catalog/template-catalog.ts";
import { errorResponses } from "../errors/documented-errors.ts";
import { accountTemplates } from "../groups/account-templates/account-templates-api.ts";
import {
  BillingPeriod,
  ConsistencyProofData,
  InclusionProofData,
  ReceiptsData,
  StatementData,
  TreeSize,
  TreeSizes,
} from "../groups/receipts/receipt-schemas.ts";
import { API_VERSION } from "../middleware/security-headers.ts";
import { GenerateBody, OcrBody, ResultFormat, VirtualTryOnBody } from "./api-schemas.ts";
import { ApiKey, idempotencyHeader, KEYED, OperatorToken, TRANSFORMATION } from "./api-security.ts";
import { EngineWork } from "./engine-work.ts";
import { RESPONSE_HEADERS } from "./response-headers.ts";
import { GenerateImageData, OcrData, OcrLanguagesData, ProfileData, Success, TemplatesData, VirtualTryOnData } from "./response-schemas.ts";

/**
 * The API's contract, declared once: each operation's path, request, success body, the errors it
 * can answer with, who may call it (ApiKey, OperatorToken) and whether it waits on an engine
 * (EngineWork: admitted by memory, its body read within that size's limit). mount.ts builds
 * the Koa router from it, with the handlers of api-handlers.ts; openapi-document.ts generates the
 * OpenAPI document from it. A new operation is one endpoint here and one handler.
 */

/** The success bodies the handlers encode. */
export const GenerateImageResponse = Success("GenerateImageReply", GenerateImageData);
export const VirtualTryOnResponse = Success("VirtualTryOnReply", VirtualTryOnData);
export const RecognizeTextResponse = Success("RecognizeTextReply", OcrData);
export const OcrLanguagesResponse = Success("OcrLanguagesReply", OcrLanguagesData);
export const TemplatesResponse = Success("TemplatesReply", TemplatesData);
export const ProfileResponse = Success("ProfileReply", ProfileData);
export const AuditReportResponse = Success("AuditReportReply", AuditReportData);
export const ReceiptsResponse = Success("ReceiptsReply", ReceiptsData);
export const InclusionProofResponse = Success("InclusionProofReply", InclusionProofData);
export const ConsistencyProofResponse = Success("ConsistencyProofReply", ConsistencyProofData);
export const StatementResponse = Success("StatementReply", StatementData);

const transformations = HttpApiGroup.make("transformations", { topLevel: true })
  .add(
    HttpApiEndpoint.post("generateImage", "/generate", {
      headers: idempotencyHeader,
      payload: GenerateBody,
      success: GenerateImageResponse.annotate({ description: "The transformed image, stored; resultUrl works without a key until expiresAt" }),
      error: errorResponses("Transformation", TRANSFORMATION),
    })
      .annotate(EngineWork, "oneImage")
      .annotate(OpenApi.Summary, "Apply a catalog template to an image")
      .annotate(
        OpenApi.Description,
        `Template types: ${templateTypes(TEMPLATES).join(", ")}. GET /templates lists every template with the plans that include it.`,
      ),
    HttpApiEndpoint.post("recognizeText", "/ocr", {
      headers: idempotencyHeader,
      payload: OcrBody,
      success: RecognizeTextResponse.annotate({ description: 'The text, with the format\'s own field; an image with no text gives text ""' }),
      error: errorResponses("Transformation", [...TRANSFORMATION, "UnsupportedLanguage"]),
    })
      .annotate(EngineWork, "oneImage")
      .annotate(OpenApi.Summary, "Read the text of an image or a document")
      .annotate(
        OpenApi.Description,
        "Images: JPEG, PNG, WebP, AVIF, GIF, TIFF, BMP, PNM (PBM, PGM, PPM). Documents: PDF and multi-page TIFF, answered with data.pages; " +
          "every page is one transformation, all reserved before work starts (not enough left: 429 QUOTA_EXCEEDED, nothing used); " +
          "more pages than MAX_DOCUMENT_PAGES (default 20): 413; an encrypted, broken or scripted PDF: 422. " +
          "Pages are straightened, turned upright and small text enlarged before reading, where that measurably helps. " +
          "outputFormat pdf: a searchable PDF, each page the image as read (grey, straightened) with its text invisible on top, " +
          "stored like every result and answered as data.resultUrl beside data.text; a document gives one PDF of all its pages. " +
          "With OCR_ENGINE=paddle, pdf is a 400 INVALID_REQUEST (that engine writes none).",
      ),
    HttpApiEndpoint.post("virtualTryOn", "/virtual-tryon", {
      headers: idempotencyHeader,
      payload: VirtualTryOnBody,
      success: VirtualTryOnResponse.annotate({ description: "The composite, stored; settings echoes what was applied, defaults filled in" }),
      error: errorResponses("TryOn", [...TRANSFORMATION, "UnusableTryOnInput"]),
    })
      .annotate(EngineWork, "twoImages")
      .annotate(OpenApi.Summary, "Dress the person in the garment (pro and enterprise plans)")
      .annotate(
        OpenApi.Description,
        "A deterministic garment transfer: body keypoints and person segmentation find the torso, the garment is cut from its product shot, " +
          "warped onto shoulders and torso and composited. It cannot re-pose a body. Photos it cannot use get 422 with a code naming why, at no cost.",
      ),
  )
  .middleware(ApiKey)
  .annotateMerge(
    OpenApi.annotations({ title: "Transformations", description: "Billable operations: each success is one transformation of the month's quota." }),
  );

const catalog = HttpApiGroup.make("catalog", { topLevel: true })
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

const account = HttpApiGroup.make("account", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getProfile", "/user/profile", {
      success: ProfileResponse.annotate({ description: "Account, plan, features, this month's quota, rate limit and the calling key" }),
      error: errorResponses("Keyed", KEYED),
    })
      .annotate(OpenApi.Summary, "The account that owns the key")
      .annotate(OpenApi.Description, "Plan, features, this month's quota (reset at the start of each UTC month), the key's rate limit and the calling key."),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Account", description: "The calling account." }));

const resultBytes = (contentType: string) => Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType }));

const results = HttpApiGroup.make("results", { topLevel: true })
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

const plainText = (identifier: string, description: string) =>
  Schema.String.annotate({ identifier, description }).pipe(HttpApiSchema.asText({ contentType: "text/plain" }));

const ledger = HttpApiGroup.make("ledger", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getLedgerCheckpoint", "/ledger/checkpoint", {
      success: plainText("LedgerCheckpoint", "a C2SP signed note: origin, tree size, base64 root hash, a blank line, the Ed25519 signature line"),
      error: errorResponses("Ledger", ["DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "The receipts log's newest checkpoint (no key needed)")
      .annotate(OpenApi.Description, "Save it: a later checkpoint must be consistent with it (GET /ledger/proof/consistency), or the log was rewritten."),
    HttpApiEndpoint.get("getLedgerKey", "/ledger/key", {
      success: plainText("LedgerVerifierKey", "the signed-note verifier key line: <name>+<key id>+<base64 of 0x01 and the Ed25519 public key>"),
      error: errorResponses("Ledger", ["DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "The keys that sign receipts and checkpoints (no key needed)")
      .annotate(OpenApi.Description, "One signed-note verifier key line per key: the current one first, then earlier generations, which older receipts name."),
    HttpApiEndpoint.get("getConsistencyProof", "/ledger/proof/consistency", {
      query: { from: TreeSize, to: TreeSize },
      success: ConsistencyProofResponse.annotate({ description: "RFC 6962 consistency proof, base64 hashes" }),
      error: errorResponses("LedgerProof", ["InvalidRequest", "DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "Proof that the log of `to` leaves extends the log of `from` (no key needed)")
      .annotate(OpenApi.Description, "Check it against two checkpoints of those sizes (RFC 9162, 2.1.4.2); a log that was rewritten has none that verifies."),
  )
  .annotateMerge(
    OpenApi.annotations({ title: "Receipts log", description: "Every quota movement in an RFC 6962 Merkle tree, signed; checkable without our code." }),
  );

const receipts = HttpApiGroup.make("receipts", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getReceipts", "/receipts/:requestId", {
      params: { requestId: Schema.String.annotate({ identifier: "RequestId" }) },
      success: ReceiptsResponse.annotate({ description: "The request's receipts: its charge, or the release of its reservation" }),
      error: errorResponses("Receipt", [...KEYED, "NotFound"]),
    })
      .annotate(OpenApi.Summary, "The signed receipts of one of the account's requests")
      .annotate(OpenApi.Description, "A charged request has its charge; a failed one the release of its reservation. Another account's request: 404."),
    HttpApiEndpoint.get("getInclusionProof", "/ledger/proof/inclusion", {
      query: { requestId: Schema.String.annotate({ identifier: "ReceiptRequestId" }), treeSize: TreeSize },
      success: InclusionProofResponse.annotate({ description: "RFC 6962 audit path of the request's newest leaf, base64 hashes" }),
      error: errorResponses("Receipt", [...KEYED, "InvalidRequest", "NotFound"]),
    })
      .annotate(OpenApi.Summary, "Proof that one of the account's receipts is in the log of treeSize leaves")
      .annotate(OpenApi.Description, "The audit path of the request's newest leaf (RFC 9162, 2.1.3.2), against a checkpoint of treeSize leaves."),
    HttpApiEndpoint.get("getStatement", "/user/statement", {
      query: { period: BillingPeriod, from: Schema.optionalKey(TreeSizes) },
      success: StatementResponse.annotate({ description: "Every receipt of the period, proved against one checkpoint, and the totals" }),
      error: errorResponses("Receipt", [...KEYED, "InvalidRequest"]),
    })
      .annotate(OpenApi.Summary, "A month's bill that proves itself")
      .annotate(OpenApi.Description, "verifier/verify-bill.mjs checks it with the key and the checkpoints saved earlier (from= their sizes)."),
  )
  .middleware(ApiKey)
  .annotateMerge(OpenApi.annotations({ title: "Receipts", description: "The account's receipts, proofs and statements." }));

const audit = HttpApiGroup.make("audit", { topLevel: true })
  .add(
    HttpApiEndpoint.get("auditAccount", "/audit/accounts/:accountId", {
      params: { accountId: Schema.String.annotate({ identifier: "AccountId" }) },
      query: {
        from: Schema.optionalKey(
          Schema.String.annotate({ identifier: "AuditRangeStart", description: "YYYY-MM, YYYY-MM-DD (UTC) or an ISO 8601 date-time; inclusive" }),
        ),
        to: Schema.optionalKey(
          Schema.String.annotate({
            identifier: "AuditRangeEnd",
            description: "YYYY-MM, YYYY-MM-DD (UTC, the whole day or month included) or an ISO 8601 date-time",
          }),
        ),
      },
      success: AuditReportResponse.annotate({ description: "The audit report" }),
      error: errorResponses("Audit", ["InvalidRequest", "Unauthorized", "RateLimited", "NotFound", "DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "Audit one account: its quota ledger and key lifecycle replayed from the event store, checked against the projections")
      .annotate(OpenApi.Description, "Operators only. The same report as `itsctl audit --json`; `ok` is false when anything differs."),
  )
  .middleware(OperatorToken)
  .annotateMerge(OpenApi.annotations({ title: "Audit", description: "Operator-only routes." }));

export const ImageTransformationApi = HttpApi.make("image-transformation-api")
  .add(transformations)
  .add(catalog)
  .add(accountTemplates)
  .add(account)
  .add(results)
  .add(ledger)
  .add(receipts)
  .add(audit)
  .annotate(
    HttpApi.AdditionalSchemas,
    Object.values(RESPONSE_HEADERS).map((header) => header.schema),
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Image Transformation API",
      version: API_VERSION,
      description:
        "Template transformations, OCR and virtual try-on over HTTPS. Keyed calls need `Authorization: Bearer <API key>`. " +
        "Rate: a token bucket per key, 15 burst, refilled at 10 per minute. Monthly transformations: free 50, pro 500, enterprise unlimited; " +
        "a transformation is one successful /generate, /ocr or /virtual-tryon. Every POST takes an optional Idempotency-Key: a retry with the same key " +
        "and body gets the first response again and is charged once. Responses carry X-Request-Id, API-Version and the IETF RateLimit fields.",
      license: { name: "Proprietary", url: "https://example.com/terms" },
    }),
  );
