import type { Context } from "koa";
import type { ErrorResponse } from "./error-response.ts";

/** The two envelopes of the API (decisions.md): success with data, or the spec 2.5 error body. */
export const sendData = (ctx: Context, data: unknown): void => {
  ctx.status = 200;
  ctx.body = { success: true, data };
};

export const sendError = (ctx: Context, error: ErrorResponse): void => {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.body = {
    success: false,
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  };
};
