import { Cause, Schema } from "effect";
import type { Context } from "koa";
import { type ApiError, type ErrorResponse, errorResponseOfCause } from "../errors/error-catalog.ts";
import type {} from "./request-state.ts";
import { ErrorBody } from "./response-schemas.ts";

/**
 * The two envelopes of the API (docs/api-decisions.md), always encoded through their Schemas: a value that
 * does not fit its documented shape fails here (a 500 with its cause logged), never reaches a client.
 */
export type SuccessSchema<D> = Schema.Codec<{ readonly success: true; readonly data: D }, unknown>;

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** One encoder per operation, made on its first response. */
const encoders = new WeakMap<SuccessSchema<never>, (value: unknown) => unknown>();

export const sendSuccess = <D>(ctx: Context, schema: SuccessSchema<D>, data: D, status = 200): void => {
  let encode = encoders.get(schema as SuccessSchema<never>);
  if (encode === undefined) encoders.set(schema as SuccessSchema<never>, (encode = Schema.encodeSync(schema) as (value: unknown) => unknown));
  const body = encode({ success: true, data });
  // The header Koa would derive from `type = "json"`, set as is: Koa then skips its mime-type lookup per response.
  ctx.res.setHeader("Content-Type", JSON_CONTENT_TYPE);
  ctx.body = body;
  ctx.status = status;
};

const encodeError = Schema.encodeSync(ErrorBody(undefined));

/** The error body for a cataloged response, naming the request as its X-Request-Id does. */
export const errorBody = (error: ErrorResponse, requestId: string) =>
  encodeError({ success: false, error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), requestId } });

/** A cause as the access log writes it for a 5xx. */
export const describeCause = (cause: unknown): string =>
  Cause.isCause(cause) ? Cause.pretty(cause) : cause instanceof Error ? (cause.stack ?? String(cause)) : String(cause);

export const sendError = (ctx: Context, error: ErrorResponse, cause?: unknown): void => {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.body = errorBody(error, ctx.state.requestId);
  ctx.state.failure = {
    code: error.code,
    ...(error.overload ? { overload: true } : {}),
    ...(error.status >= 500 && cause !== undefined && !error.overload ? { cause: describeCause(cause) } : {}),
  };
};

/**
 * A failed use case: its typed failure's response, or 500 with the cause kept for the log. Only a
 * cataloged error may reach here: a failure without a status does not compile.
 */
export const sendFailure = (ctx: Context, cause: Cause.Cause<ApiError>): void => sendError(ctx, errorResponseOfCause(cause), cause);
