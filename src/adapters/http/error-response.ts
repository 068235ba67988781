import { Cause } from "effect";

/** How every failure reaches the client: status, the error body of spec 2.5, extra headers. */
export interface ErrorResponse {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
  readonly headers?: Readonly<Record<string, string>>;
}

type Tagged = { readonly _tag: string } & Record<string, unknown>;

const retryAfter = (seconds: unknown): Record<string, string> => ({ "Retry-After": String(Math.max(1, Math.ceil(Number(seconds) || 1))) });

/** Each typed failure of the use cases and ports, by tag. Anything else is our fault: 500. */
const BY_TAG: Readonly<Record<string, (error: Tagged) => ErrorResponse>> = {
  Unauthorized: (e) => ({ status: 401, code: "UNAUTHORIZED", message: String(e.message) }),
  RateLimited: (e) => ({
    status: 429,
    code: "RATE_LIMIT_EXCEEDED",
    message: "Too many requests for this API key; retry later.",
    headers: retryAfter(e.retryAfterSeconds),
  }),
  InvalidRequest: (e) => ({
    status: 400,
    code: "INVALID_REQUEST",
    message: String(e.message),
    details: e.details as NonNullable<ErrorResponse["details"]>,
  }),
  InsufficientPermissions: (e) => ({ status: 403, code: "INSUFFICIENT_PERMISSIONS", message: String(e.message) }),
  QuotaExceeded: (e) => ({
    status: 429,
    code: "QUOTA_EXCEEDED",
    message: `The plan's ${String(e.limit)} transformations for ${String(e.period)} are used up.`,
    headers: retryAfter(e.retryAfterSeconds),
  }),
  NotFound: (e) => ({ status: 404, code: "NOT_FOUND", message: String(e.message) }),
  InvalidImage: (e) => ({ status: 422, code: "INVALID_IMAGE", message: String(e.message) }),
  ImageTooLarge: (e) => ({ status: 413, code: "PAYLOAD_TOO_LARGE", message: String(e.message) }),
  EngineBusy: (e) => ({
    status: 503,
    code: "SERVICE_UNAVAILABLE",
    message: "The engine is at capacity; retry shortly.",
    headers: retryAfter(e.retryAfterSeconds),
  }),
  EngineTimeout: (e) => ({
    status: 504,
    code: "PROCESSING_TIMEOUT",
    message: `Processing took longer than ${String(e.deadlineMs)} ms.`,
  }),
  DependencyUnavailable: () => ({
    status: 503,
    code: "SERVICE_UNAVAILABLE",
    message: "A dependency of the service is unavailable; retry shortly.",
    headers: retryAfter(5),
  }),
  UnsupportedLanguage: (e) => ({
    status: 400,
    code: "INVALID_REQUEST",
    message: `Language ${String(e.language)} is not supported; allowed: ${(e.supported as ReadonlyArray<string>).join(", ")}.`,
    details: [{ path: "language", message: `allowed: ${(e.supported as ReadonlyArray<string>).join(", ")}` }],
  }),
  UnusableTryOnInput: (e) => ({
    status: 422,
    code: String(e.code),
    message: String(e.message),
    details: [{ path: String(e.field), message: String(e.message) }],
  }),
};

export const INTERNAL_ERROR: ErrorResponse = {
  status: 500,
  code: "INTERNAL_ERROR",
  message: "An internal error occurred. Quote the X-Request-Id header when reporting it.",
};

export const errorResponseOf = (error: unknown): ErrorResponse | undefined => {
  if (typeof error !== "object" || error === null || !("_tag" in error)) return undefined;
  const tagged = error as Tagged;
  return BY_TAG[tagged._tag]?.(tagged);
};

/** The response for a failed Effect: its first typed failure, or 500 for defects. */
export const errorResponseOfCause = (cause: Cause.Cause<unknown>): ErrorResponse => {
  const failure = cause.reasons.find(Cause.isFailReason);
  return (failure && errorResponseOf(failure.error)) ?? INTERNAL_ERROR;
};
