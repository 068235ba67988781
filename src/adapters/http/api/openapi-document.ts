import { OpenApi } from "effect/http-api";
import { ERROR_HEADERS } from "../errors/documented-errors.ts";
import { ImageTransformationApi } from "./api-definition.ts";
import { API_KEY_SCHEME } from "./api-security.ts";
import { declareKeyScopes } from "./key-scope-document.ts";
import { openApiWebhooks } from "./openapi-webhooks.ts";
import { declareResponseHeaders } from "./response-headers.ts";

/**
 * The OpenAPI 3.1 reference served at GET /api/openapi.json, generated from the API's definition.
 * Objects stay open in the document: clients must ignore fields added later (changes are additive)
 * and the server ignores unknown request fields, while Effect's generator closes every object.
 */
const openObjects = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(openObjects);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, inner]) => !(key === "additionalProperties" && inner === false))
      .map(([key, inner]) => [key, openObjects(inner)]),
  );
};

/** The try-on settings are the one closed object: a misspelt setting is refused rather than defaulted (groups/transformations/transformation-schemas.ts). */
const closeSettings = (schemas: Record<string, object>) => {
  const { propertyNames: _, patternProperties: __, ...settings } = schemas["TryOnSettingsInput"] as { propertyNames?: unknown; patternProperties?: unknown };
  schemas["TryOnSettingsInput"] = { ...settings, additionalProperties: false };
};

export const openApiDocument = (publicBaseUrl: string) => {
  const generated = openObjects(OpenApi.fromApi(ImageTransformationApi)) as ReturnType<typeof OpenApi.fromApi>;
  closeSettings(generated.components.schemas as Record<string, object>);
  declareResponseHeaders(generated.paths as never, ERROR_HEADERS, API_KEY_SCHEME);
  declareKeyScopes(ImageTransformationApi, generated.paths as never);
  return {
    ...generated,
    info: {
      ...generated.info,
      contact: { name: "API support", url: `${publicBaseUrl}/api/openapi.json`, email: "support@example.com" },
    },
    servers: [{ url: `${publicBaseUrl}/api` }],
    webhooks: openApiWebhooks(),
  };
};
