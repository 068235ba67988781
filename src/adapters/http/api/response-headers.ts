import { Schema } from "effect";
import { PLANS } from "../../../domain/plan.ts";
import { takeToken } from "../../../domain/token-bucket.ts";
import { type ErrorHeader, isReplayable } from "../errors/error-catalog.ts";
import { API_VERSION, SECURITY_HEADERS } from "../middleware/security-headers.ts";

/**
 * The response headers of the API, each a named schema (api-definition.ts lists them as components),
 * and which response carries which: every response the ones below, keyed operations the RateLimit
 * fields, errors what their catalog entry sends, POSTs the replay marker, result images Vary. The e2e suite checks every
 * reply's headers against what the document declares.
 */
const header = <S extends Schema.Top>(identifier: string, schema: S, description: string) => ({
  identifier,
  schema: schema.annotate({ identifier, description }),
});

const exactly = (name: keyof typeof SECURITY_HEADERS) => Schema.Literal(SECURITY_HEADERS[name]!);

/** The examples of the RateLimit fields: a plan's rate (every plan shares one), and a full bucket after one request. */
const rate = PLANS.free.rate;
const afterOneRequest = takeToken(undefined, rate, 0);

export const RESPONSE_HEADERS = {
  "X-Request-Id": header(
    "RequestIdHeader",
    Schema.String.check(Schema.isMaxLength(128)),
    "This request's id, as the logs record it; quote it when reporting a problem",
  ),
  "API-Version": header("ApiVersionHeader", Schema.Literal(API_VERSION), "The date of the API version that answered"),
  "Cache-Control": header("CacheControlHeader", Schema.String, "no-store, except for the document itself and result images"),
  "Strict-Transport-Security": header("StrictTransportSecurityHeader", exactly("Strict-Transport-Security"), "HTTPS only, for a year"),
  "X-Content-Type-Options": header("ContentTypeOptionsHeader", exactly("X-Content-Type-Options"), "Content types are not sniffed"),
  "RateLimit-Policy": header(
    "RateLimitPolicyHeader",
    Schema.String.check(Schema.isPattern(/^"per-key";q=\d{1,9};w=\d{1,9}$/u)),
    `The key's rate policy (IETF RateLimit fields): q requests per w seconds, e.g. "per-key";q=${rate.burst};w=${Math.round((rate.burst * 60) / rate.perMinute)}`,
  ),
  RateLimit: header(
    "RateLimitHeader",
    Schema.String.check(Schema.isPattern(/^"per-key";r=\d{1,9};t=\d{1,9}$/u)),
    `What is left: r requests now, the bucket full again in t seconds, e.g. "per-key";r=${afterOneRequest.remaining};t=${afterOneRequest.resetSeconds}`,
  ),
  "Retry-After": header("RetryAfterHeader", Schema.String.check(Schema.isPattern(/^\d{1,9}$/u)), "Seconds to wait before retrying"),
  Allow: header("AllowHeader", Schema.String.check(Schema.isPattern(/^[A-Z]+(?:, [A-Z]+)*$/u)), "The methods the path takes"),
  Vary: header(
    "VaryHeader",
    Schema.Literal("Accept"),
    "The format came from the Accept header (a result that negotiates its format): caches keep one per Accept",
  ),
  "Idempotent-Replayed": header("IdempotentReplayedHeader", Schema.Literal("true"), "The first response to this Idempotency-Key, sent again"),
  Location: header("LocationHeader", Schema.String.check(Schema.isPattern(/^\/api\/jobs\/[^/?#]{1,128}$/u)), "The job a 202 made: GET it for the outcome"),
  "Preference-Applied": header("PreferenceAppliedHeader", Schema.Literal("respond-async"), "Prefer: respond-async was honoured: the work runs as a job"),
} as const;

export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

const ON_EVERY_RESPONSE: ReadonlyArray<ResponseHeader> = [
  "X-Request-Id",
  "API-Version",
  "Cache-Control",
  "Strict-Transport-Security",
  "X-Content-Type-Options",
];

/** What an operation's error statuses send: the headers every error of the status sends, and those some do. */
export interface ErrorStatusHeaders {
  readonly always: ReadonlyArray<ErrorHeader>;
  readonly sometimes: ReadonlyArray<ErrorHeader>;
}

interface Operation {
  readonly security?: ReadonlyArray<Record<string, unknown>>;
  readonly responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema?: { $ref?: string } }> }>;
}

/**
 * Declares on each response of `paths` the headers it carries. `errorHeaders` gives, per error
 * component, what its errors send; `keyedScheme` names the security scheme whose operations carry
 * the RateLimit fields (set once the key is admitted).
 */
export const declareResponseHeaders = (
  paths: Record<string, Record<string, Operation>>,
  errorHeaders: ReadonlyMap<string, ErrorStatusHeaders>,
  keyedScheme: string,
): void => {
  const ref = (name: ResponseHeader, required: boolean) => ({ required, schema: { $ref: `#/components/schemas/${RESPONSE_HEADERS[name].identifier}` } });
  for (const [method, operation] of Object.values(paths).flatMap((item) => Object.entries(item))) {
    const keyed = operation.security?.some((requirement) => keyedScheme in requirement) ?? false;
    for (const [statusText, response] of Object.entries(operation.responses)) {
      const status = Number(statusText);
      const declared: Array<[ResponseHeader, boolean]> = ON_EVERY_RESPONSE.map((name) => [name, true]);
      // Admission sets them, so every success has them: a refused key (401) and a request no route took (405) never got
      // that far, and a client refused for its failed keys (429 before any key was admitted) has none.
      if (keyed && status !== 401 && status !== 405) declared.push(["RateLimit-Policy", status < 300], ["RateLimit", status < 300]);
      if (method === "post" && status !== 401 && status !== 405 && isReplayable(status)) declared.push(["Idempotent-Replayed", false]);
      if (status === 202) declared.push(["Location", true], ["Preference-Applied", true]);
      // A result image may be one the Accept header chose.
      if (status < 300 && Object.keys(response.content ?? {}).some((type) => type.startsWith("image/"))) declared.push(["Vary", false]);
      const component = response.content?.["application/json"]?.schema?.$ref?.split("/").at(-1);
      const sends = component === undefined ? undefined : errorHeaders.get(component);
      for (const name of sends?.always ?? []) declared.push([name, true]);
      for (const name of sends?.sometimes ?? []) declared.push([name, false]);
      response.headers = Object.fromEntries(declared.map(([name, required]) => [name, ref(name, required)]));
    }
  }
};
