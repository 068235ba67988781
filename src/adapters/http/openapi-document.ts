import { Schema } from "effect";
import { PLAN_IDS } from "../../domain/plan.ts";
import { TEMPLATES, templateTypes } from "../../domain/template-catalog.ts";
import { DEFAULT_TRYON_SETTINGS, TRYON_SETTING_DESCRIPTIONS, TRYON_SETTING_NAMES, TRYON_SETTING_VALUES } from "../../domain/tryon-settings.ts";
import { ocrAutoLanguage, ocrLanguages, ocrOutputFormats } from "../../ports/ocr-engine.ts";
import { GenerateBody } from "./api-schemas.ts";
import { API_VERSION } from "./middleware/security-headers.ts";
import { auditPaths, operatorSecurityScheme } from "./openapi-audit.ts";

/**
 * The OpenAPI 3.1 reference served at GET /api/openapi.json. Request bodies come from the same
 * Schemas that validate them, so the document cannot drift from what the server accepts.
 */
const bodySchema = (schema: Schema.Top) => Schema.toJsonSchemaDocument(schema).schema;

/** Each try-on setting: its allowed values, what each does, and the default. */
const tryOnSettingsSchema = {
  type: "object",
  additionalProperties: false,
  properties: Object.fromEntries(
    TRYON_SETTING_NAMES.map((name) => [
      name,
      {
        enum: TRYON_SETTING_VALUES[name],
        default: DEFAULT_TRYON_SETTINGS[name],
        description: Object.entries(TRYON_SETTING_DESCRIPTIONS[name] as Readonly<Record<string, string>>)
          .map(([value, what]) => `${value}: ${what}`)
          .join("; "),
      },
    ]),
  ),
};

const errorCodes = {
  400: "INVALID_REQUEST: malformed JSON, a missing or mistyped field, an unknown value (the message lists the allowed ones)",
  401: "UNAUTHORIZED: API key missing, invalid or deleted",
  403: "INSUFFICIENT_PERMISSIONS: the plan does not include the feature or template",
  413: "PAYLOAD_TOO_LARGE: body over the limit, or a decoded image over the byte limit",
  415: "UNSUPPORTED_MEDIA_TYPE: the body is not application/json",
  422: "INVALID_IMAGE: not base64, not an image, corrupt, unsupported or vector format, over the pixel limit",
  429: "RATE_LIMIT_EXCEEDED (per-key token bucket) or QUOTA_EXCEEDED (monthly transformations); Retry-After is set",
  500: "INTERNAL_ERROR",
  503: "SERVICE_UNAVAILABLE: an engine's queue is full or a dependency is down; Retry-After is set",
  504: "PROCESSING_TIMEOUT",
} as const;

const errorResponses = (statuses: ReadonlyArray<keyof typeof errorCodes>) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: errorCodes[status], content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    ]),
  );

/** Every transformation can fail in each of these ways (decisions.md's order of checks). */
const transformationErrors = errorResponses([400, 401, 403, 413, 415, 422, 429, 500, 503, 504]);

const requestId = { type: "string" };
const processingTime = { type: "number", description: "milliseconds" };

/** A stored result: its signed URL works without a key until it expires. */
const storedResultFields = {
  requestId,
  resultUrl: { type: "string", format: "uri" },
  expiresAt: { type: "string", format: "date-time" },
};

const success = (description: string, data: object) => ({
  200: {
    description,
    content: {
      "application/json": {
        schema: { type: "object", required: ["success", "data"], properties: { success: { const: true }, data } },
      },
    },
  },
});

export const openApiDocument = (publicBaseUrl: string) => ({
  openapi: "3.1.0",
  info: {
    title: "Image Transformation API",
    version: API_VERSION,
    description:
      "Template transformations, OCR and virtual try-on over HTTPS. Every call needs `Authorization: Bearer <API key>`. " +
      "Rate: a token bucket per key, 15 burst, refilled at 10 per minute. Monthly transformations: free 50, pro 500, enterprise unlimited; " +
      "a transformation is one successful /generate, /ocr or /virtual-tryon. Responses carry X-Request-Id, API-Version and the IETF RateLimit fields.",
  },
  servers: [{ url: `${publicBaseUrl}/api` }],
  security: [{ bearer: [] }],
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "its_<keyId>_<secret>" }, ...operatorSecurityScheme },
    schemas: {
      Error: {
        type: "object",
        required: ["success", "error"],
        properties: {
          success: { const: false },
          error: {
            type: "object",
            required: ["code", "message"],
            properties: {
              code: { type: "string" },
              message: { type: "string" },
              details: {
                type: "array",
                items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } },
              },
            },
          },
        },
      },
    },
  },
  paths: {
    ...auditPaths,
    "/generate": {
      post: {
        summary: "Apply a catalog template to an image",
        description: `Template types: ${templateTypes(TEMPLATES).join(", ")}. GET /templates lists every template.`,
        requestBody: { required: true, content: { "application/json": { schema: bodySchema(GenerateBody) } } },
        responses: {
          ...success("The transformed image, stored; resultUrl works without a key until expiresAt", {
            type: "object",
            properties: {
              ...storedResultFields,
              template: { type: "string" },
              templateType: { type: "string" },
              format: { type: "string" },
              width: { type: "integer" },
              height: { type: "integer" },
              bytes: { type: "integer" },
              processingTime,
            },
          }),
          ...transformationErrors,
        },
      },
    },
    "/virtual-tryon": {
      post: {
        summary: "Dress the person in the garment (pro and enterprise plans)",
        description:
          "A deterministic garment transfer: body keypoints (MoveNet) and person segmentation find the torso, the garment is cut from its product shot, " +
          "warped onto shoulders and torso with a thin-plate spline, shaded from the photo and composited. It cannot re-pose a body. " +
          "Photos it cannot use get 422 NO_PERSON_DETECTED, MULTIPLE_PEOPLE or NO_GARMENT_DETECTED, and cost no quota. The result has the person image's size.",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["personImage", "clothingImage"],
                properties: {
                  personImage: { type: "string", description: "base64 or data URL" },
                  clothingImage: { type: "string", description: "base64 or data URL; a product shot on a plain or transparent background" },
                  settings: tryOnSettingsSchema,
                },
              },
            },
          },
        },
        responses: {
          ...success("The composite, stored; settings echoes what was applied, defaults filled in", {
            type: "object",
            properties: {
              ...storedResultFields,
              settings: tryOnSettingsSchema,
              format: { enum: ["jpeg", "png"], description: "png (with alpha) when backgroundStyle is transparent" },
              width: { type: "integer" },
              height: { type: "integer" },
              processingTime,
            },
          }),
          ...transformationErrors,
        },
      },
    },
    "/ocr": {
      post: {
        summary: "Read the text of an image",
        description:
          `language: ${[ocrAutoLanguage, ...ocrLanguages].join(", ")} (default ${ocrAutoLanguage}: the script and language are detected and reported); ` +
          `outputFormat: ${ocrOutputFormats.join(", ")} (default text). GET /ocr/languages lists what the configured engine reads.`,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["image"],
                properties: {
                  image: { type: "string", description: "base64 or data URL" },
                  language: { type: "string", enum: [ocrAutoLanguage, ...ocrLanguages], default: ocrAutoLanguage },
                  outputFormat: { type: "string", enum: ocrOutputFormats, default: "text" },
                },
              },
            },
          },
        },
        responses: {
          ...success("The text; an image with no text gives text \"\"", {
            type: "object",
            required: ["text", "language", "confidence", "outputFormat", "processingTime"],
            properties: {
              requestId,
              text: { type: "string" },
              language: { type: "string", description: "the language used; the detected one when auto was asked" },
              confidence: { type: "number", minimum: 0, maximum: 100 },
              outputFormat: { enum: ocrOutputFormats },
              processingTime,
              blocks: { type: "array", description: "json only: blocks, lines and words with bbox {x0,y0,x1,y1} and confidence" },
              hocr: { type: "string", description: "hocr only" },
              tsv: { type: "string", description: "tsv only" },
            },
          }),
          ...transformationErrors,
        },
      },
    },
    "/ocr/languages": {
      get: {
        summary: "The OCR languages of the configured engine",
        responses: {
          ...success("auto plus each language code with its name", {
            type: "object",
            properties: { languages: { type: "array", items: { type: "object", properties: { code: { type: "string" }, name: { type: "string" } } } } },
          }),
          ...errorResponses([401, 429]),
        },
      },
    },
    "/templates": {
      get: {
        summary: "The template catalog",
        responses: {
          ...success("Every template with its type, description, output and the plans that include it", {
            type: "object",
            properties: { templates: { type: "array", items: { type: "object" } } },
          }),
          ...errorResponses([401, 429]),
        },
      },
    },
    "/user/profile": {
      get: {
        summary: "The account that owns the key",
        responses: {
          ...success("Account, plan, features, this month's quota, rate limit and the calling key", {
            type: "object",
            properties: {
              id: { type: "string" },
              email: { type: "string" },
              name: { type: "string" },
              plan: { enum: PLAN_IDS },
              features: { type: "array", items: { type: "string" } },
              quota: {
                type: "object",
                properties: {
                  limit: { type: ["integer", "null"] },
                  used: { type: "integer" },
                  remaining: { type: ["integer", "null"] },
                  period: { type: "string", description: "YYYY-MM, UTC" },
                  resetsAt: { type: "string", format: "date-time" },
                },
              },
              rateLimit: { type: "object", properties: { perMinute: { type: "integer" }, burst: { type: "integer" } } },
              key: { type: "object", properties: { id: { type: "string" }, name: { type: "string" }, prefix: { type: "string" }, createdAt: { type: "string" } } },
            },
          }),
          ...errorResponses([401, 429]),
        },
      },
    },
    "/results/{resultId}": {
      get: {
        summary: "A stored result, through its signed URL (no key needed)",
        security: [],
        parameters: [
          { name: "resultId", in: "path", required: true, schema: { type: "string" } },
          { name: "expires", in: "query", required: true, schema: { type: "string" } },
          { name: "signature", in: "query", required: true, schema: { type: "string" } },
        ],
        responses: {
          200: { description: "The image bytes" },
          403: { description: "INVALID_SIGNATURE: the URL was altered" },
          404: { description: "NOT_FOUND: unknown or expired" },
        },
      },
    },
  },
});
