import { Cause } from "effect";
import type * as ApplicationErrors from "../../../application/errors.ts";
import { UNUSABLE_INPUT_CODES, type UnusableTryOnInput } from "../../../ports/engines/tryon-engine.ts";
import type * as PortErrors from "../../../ports/errors.ts";
import type { UndecodableEvent } from "../../../ports/event-store.ts";
import type * as HttpErrors from "./protocol-errors.ts";

/**
 * The error catalog: every typed failure that can reach a client, with its HTTP status, its spec
 * code(s) and its message. The one place statuses and codes are written: responses, logs and the
 * OpenAPI document all read them from here.
 */
export interface ErrorResponse {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
  readonly headers?: Readonly<Record<string, string>>;
  /** An answer to load (engines full, a deadline passed, a rollout): the client retries; logged at warn, not as a fault. */
  readonly overload?: true;
}

type TaggedErrorsOf<M> = {
  [K in keyof M]: M[K] extends abstract new (...args: never) => infer I ? (I extends { readonly _tag: string } ? I : never) : never;
}[keyof M];

/** Every error class the use cases, ports and the HTTP adapter export: each must have an entry below. */
export type ApiError =
  TaggedErrorsOf<typeof ApplicationErrors> | TaggedErrorsOf<typeof PortErrors> | TaggedErrorsOf<typeof HttpErrors> | UnusableTryOnInput | UndecodableEvent;
export type ApiErrorTag = ApiError["_tag"];

/** The headers an error response carries besides those of every response. */
export type ErrorHeader = "Retry-After" | "Allow";

interface CatalogEntry<E> {
  readonly status: number;
  /** The codes this error answers with (for the document); absent: a domain rule's own code. */
  readonly codes?: readonly [string, ...Array<string>];
  /**
   * Whether an idempotent retry gets this response again: what the request deterministically
   * earns. A refusal a retry may not meet (busy, rate or quota, a 5xx) frees the key instead.
   */
  readonly replayable: boolean;
  /** The headers its response carries (the document declares them). */
  readonly sends?: ReadonlyArray<ErrorHeader>;
  /** An expected answer to load, not a fault: the access log writes it at warn (docs/operations.md). */
  readonly overload?: true;
  readonly respond: (error: E) => Omit<ErrorResponse, "status" | "overload">;
}

const retryAfter = (seconds: number): Record<string, string> => ({ "Retry-After": String(Math.max(1, Math.ceil(seconds || 1))) });

/** Exhaustive by type: an error class without an entry here does not compile. */
export const ERROR_CATALOG: { readonly [T in ApiErrorTag]: CatalogEntry<Extract<ApiError, { readonly _tag: T }>> } = {
  InvalidRequest: {
    status: 400,
    replayable: true,
    codes: ["INVALID_REQUEST"],
    respond: (e) => ({ code: "INVALID_REQUEST", message: e.message, ...(e.details.length > 0 ? { details: e.details } : {}) }),
  },
  UnsupportedLanguage: {
    status: 400,
    replayable: true,
    codes: ["INVALID_REQUEST"],
    respond: (e) => ({
      code: "INVALID_REQUEST",
      message: `Language ${e.language} is not supported; allowed: ${e.supported.join(", ")}.`,
      details: [{ path: "language", message: `allowed: ${e.supported.join(", ")}` }],
    }),
  },
  Unauthorized: { status: 401, replayable: true, codes: ["UNAUTHORIZED"], respond: (e) => ({ code: "UNAUTHORIZED", message: e.message }) },
  InsufficientPermissions: {
    status: 403,
    replayable: true,
    codes: ["INSUFFICIENT_PERMISSIONS"],
    respond: (e) => ({ code: "INSUFFICIENT_PERMISSIONS", message: e.message }),
  },
  IpNotAllowed: {
    status: 403,
    replayable: true,
    codes: ["IP_NOT_ALLOWED"],
    respond: (e) => ({ code: "IP_NOT_ALLOWED", message: `This API key may not be used from ${e.address}.` }),
  },
  TemplateLimitReached: {
    status: 403,
    replayable: true,
    codes: ["TEMPLATE_LIMIT_REACHED"],
    respond: (e) => ({
      code: "TEMPLATE_LIMIT_REACHED",
      message: `The ${e.plan} plan keeps at most ${e.limit} templates of your own; delete one or change plans.`,
      details: [{ path: "name", message: `limit: ${e.limit} templates` }],
    }),
  },
  HttpsRequired: {
    status: 403,
    replayable: true,
    codes: ["HTTPS_REQUIRED"],
    respond: () => ({ code: "HTTPS_REQUIRED", message: "This API is served over HTTPS only." }),
  },
  InvalidSignature: {
    status: 403,
    replayable: true,
    codes: ["INVALID_SIGNATURE"],
    respond: () => ({ code: "INVALID_SIGNATURE", message: "The result URL's signature does not match." }),
  },
  NotFound: { status: 404, replayable: true, codes: ["NOT_FOUND"], respond: (e) => ({ code: "NOT_FOUND", message: e.message }) },
  MethodNotAllowed: {
    status: 405,
    replayable: true,
    sends: ["Allow"],
    codes: ["METHOD_NOT_ALLOWED"],
    respond: (e) => ({ code: "METHOD_NOT_ALLOWED", message: `${e.method} is not allowed on ${e.path}.`, headers: { Allow: e.allow.join(", ") } }),
  },
  CommandRejected: { status: 409, replayable: false, respond: (e) => ({ code: e.code, message: e.message }) },
  IdempotencyKeyInUse: {
    status: 409,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["IDEMPOTENCY_KEY_IN_USE"],
    respond: (e) => ({
      code: "IDEMPOTENCY_KEY_IN_USE",
      message: "The first request with this Idempotency-Key is still running; retry after Retry-After seconds.",
      headers: retryAfter(e.retryAfterSeconds),
    }),
  },
  IdempotentResponseGone: {
    status: 410,
    replayable: true,
    codes: ["IDEMPOTENCY_RESPONSE_GONE"],
    respond: () => ({
      code: "IDEMPOTENCY_RESPONSE_GONE",
      message:
        "The request with this Idempotency-Key was completed, but its response is no longer available; it was not run again. Send a new key to run it again.",
    }),
  },
  BodyTooLarge: {
    status: 413,
    replayable: true,
    codes: ["PAYLOAD_TOO_LARGE"],
    respond: (e) => ({ code: "PAYLOAD_TOO_LARGE", message: `The request body is larger than ${e.limitBytes} bytes.` }),
  },
  ImageTooLarge: { status: 413, replayable: true, codes: ["PAYLOAD_TOO_LARGE"], respond: (e) => ({ code: "PAYLOAD_TOO_LARGE", message: e.message }) },
  UnsupportedMediaType: {
    status: 415,
    replayable: true,
    codes: ["UNSUPPORTED_MEDIA_TYPE"],
    respond: (e) => ({ code: "UNSUPPORTED_MEDIA_TYPE", message: e.message }),
  },
  InvalidImage: { status: 422, replayable: true, codes: ["INVALID_IMAGE"], respond: (e) => ({ code: "INVALID_IMAGE", message: e.message }) },
  UnusableTryOnInput: {
    status: 422,
    replayable: true,
    codes: UNUSABLE_INPUT_CODES,
    respond: (e) => ({ code: e.code, message: e.message, details: [{ path: e.field, message: e.message }] }),
  },
  IdempotencyKeyReused: {
    status: 422,
    replayable: true,
    codes: ["IDEMPOTENCY_KEY_REUSED"],
    respond: (e) => ({ code: "IDEMPOTENCY_KEY_REUSED", message: e.message }),
  },
  RateLimited: {
    status: 429,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["RATE_LIMIT_EXCEEDED"],
    respond: (e) => ({ code: "RATE_LIMIT_EXCEEDED", message: "Too many requests for this API key; retry later.", headers: retryAfter(e.retryAfterSeconds) }),
  },
  KeyQuotaExceeded: {
    status: 429,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["KEY_QUOTA_EXCEEDED"],
    respond: (e) => ({
      code: "KEY_QUOTA_EXCEEDED",
      message: `This API key's ${e.limit} transformations for ${e.period} are used up; the account's quota is untouched.`,
      headers: retryAfter(e.retryAfterSeconds),
    }),
  },
  QuotaExceeded: {
    status: 429,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["QUOTA_EXCEEDED"],
    respond: (e) => ({
      code: "QUOTA_EXCEEDED",
      message: `The plan's ${e.limit} transformations for ${e.period} are used up.`,
      headers: retryAfter(e.retryAfterSeconds),
    }),
  },
  JobQueueFull: {
    status: 429,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["TOO_MANY_JOBS"],
    respond: (e) => ({
      code: "TOO_MANY_JOBS",
      message: `The account has ${e.limit} jobs queued or running, the most it may; send this one when one of them has ended.`,
      headers: retryAfter(30),
    }),
  },
  EngineBusy: {
    status: 503,
    overload: true,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["SERVICE_UNAVAILABLE"],
    respond: (e) => ({ code: "SERVICE_UNAVAILABLE", message: "The engine is at capacity; retry shortly.", headers: retryAfter(e.retryAfterSeconds) }),
  },
  ShuttingDown: {
    status: 503,
    overload: true,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["SERVICE_UNAVAILABLE"],
    respond: () => ({ code: "SERVICE_UNAVAILABLE", message: "This instance is shutting down; retry on another.", headers: retryAfter(1) }),
  },
  DependencyUnavailable: {
    status: 503,
    replayable: false,
    sends: ["Retry-After"],
    codes: ["SERVICE_UNAVAILABLE"],
    respond: () => ({ code: "SERVICE_UNAVAILABLE", message: "A dependency of the service is unavailable; retry shortly.", headers: retryAfter(5) }),
  },
  // A stored event its stream's Schema cannot read: our data's fault; the log has stream and revision, the client nothing.
  UndecodableEvent: {
    status: 500,
    replayable: false,
    codes: ["INTERNAL_ERROR"],
    respond: () => ({ code: INTERNAL_ERROR.code, message: INTERNAL_ERROR.message }),
  },
  EngineTimeout: {
    status: 504,
    overload: true,
    replayable: false,
    codes: ["PROCESSING_TIMEOUT"],
    respond: (e) => ({ code: "PROCESSING_TIMEOUT", message: `Processing took longer than ${e.deadlineMs} ms.` }),
  },
};

/** A defect (a bug, an unexpected throw): our fault, and the message leaks nothing. */
export const INTERNAL_ERROR: ErrorResponse = {
  status: 500,
  code: "INTERNAL_ERROR",
  message: "An internal error occurred. Quote the X-Request-Id header when reporting it.",
};

/** The error statuses an idempotent retry gets again: every entry with the status must say so. */
const REPLAYED_STATUSES = new Set(
  Object.values(ERROR_CATALOG)
    .map((entry) => entry.status)
    .filter((status) => Object.values(ERROR_CATALOG).every((entry) => entry.status !== status || entry.replayable)),
);

/** Whether an idempotent retry gets a response of this status again (idempotency.ts): a success, or a replayable error. */
export const isReplayable = (status: number): boolean => (status >= 200 && status < 300) || REPLAYED_STATUSES.has(status);

const isApiError = (error: unknown): error is ApiError =>
  typeof error === "object" && error !== null && "_tag" in error && Object.hasOwn(ERROR_CATALOG, (error as { _tag: string })._tag);

export const errorResponseOf = (error: ApiError): ErrorResponse => {
  const entry = ERROR_CATALOG[error._tag] as CatalogEntry<ApiError>;
  return { status: entry.status, ...entry.respond(error), ...(entry.overload ? { overload: true } : {}) };
};

/** The response for a failed Effect: its first typed failure, or 500 for defects and interruptions. */
export const errorResponseOfCause = (cause: Cause.Cause<ApiError>): ErrorResponse => {
  const failure = cause.reasons.find(Cause.isFailReason);
  return failure && isApiError(failure.error) ? errorResponseOf(failure.error) : INTERNAL_ERROR;
};
