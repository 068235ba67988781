import { OpenApi } from "effect/http-api";
import { ImageTransformationApi } from "./api-definition.ts";

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

export const openApiDocument = (publicBaseUrl: string) => {
  const generated = OpenApi.fromApi(ImageTransformationApi);
  return {
    ...(openObjects(generated) as typeof generated),
    info: {
      ...generated.info,
      contact: { name: "API support", url: `${publicBaseUrl}/api/openapi.json`, email: "support@example.com" },
    },
    servers: [{ url: `${publicBaseUrl}/api` }],
  };
};
