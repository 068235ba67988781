import { Schema } from "effect";
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api";
import type { ApiErrorTag } from "../errors/error-catalog.ts";
import { IdempotencyKey } from "./idempotency-key.ts";

/**
 * What the API's groups share (groups/<group>/<group>-api.ts): who may
 * call (ApiKey, OperatorToken), the errors every keyed, posted or billable operation can answer
 * with, and the Idempotency-Key header of a POST.
 */
export const KEYED: ReadonlyArray<ApiErrorTag> = ["Unauthorized", "IpNotAllowed", "RateLimited", "DependencyUnavailable"];
/** A POST: its JSON body and Idempotency-Key can be refused before the use case runs; over plain HTTP, it is refused. */
export const POSTED: ReadonlyArray<ApiErrorTag> = [
  ...KEYED,
  "HttpsRequired",
  "InvalidRequest",
  "UnsupportedMediaType",
  "BodyTooLarge",
  "IdempotencyKeyReused",
  "IdempotencyKeyInUse",
  "IdempotentResponseGone",
];
/** A billable transformation (docs/api-decisions.md, the order of checks). */
export const TRANSFORMATION: ReadonlyArray<ApiErrorTag> = [
  ...POSTED,
  "InsufficientPermissions",
  "QuotaExceeded",
  "KeyQuotaExceeded",
  "ImageTooLarge",
  "InvalidImage",
  "EngineBusy",
  "EngineTimeout",
];

/** The scheme of the keyed operations: their responses carry the RateLimit fields. */
export const API_KEY_SCHEME = "apiKey";

export class ApiKey extends HttpApiMiddleware.Service<ApiKey>()("ApiKey", {
  security: {
    [API_KEY_SCHEME]: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "An API key, sent as Authorization: Bearer its_<keyId>_<secret>"),
      HttpApiSecurity.annotate(OpenApi.Format, "its_<keyId>_<secret>"),
    ),
  },
}) {}

export class OperatorToken extends HttpApiMiddleware.Service<OperatorToken>()("OperatorToken", {
  security: {
    operatorToken: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The operator credential (OPERATOR_TOKEN), sent as Authorization: Bearer <token>; API keys do not open these routes.",
      ),
      HttpApiSecurity.annotate(OpenApi.Format, "OPERATOR_TOKEN"),
    ),
  },
}) {}

export const idempotencyHeader = {
  "idempotency-key": Schema.optionalKey(IdempotencyKey.annotate({ identifier: "IdempotencyKey" })),
};
