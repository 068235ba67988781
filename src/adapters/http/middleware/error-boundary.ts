import type { Middleware } from "koa";
import type { Logger } from "pino";
import { INTERNAL_ERROR, type ErrorResponse } from "../error-response.ts";
import { sendError } from "../respond.ts";

/** Errors thrown by middleware (the body parser, a bug) become the error body, never a stack trace. */
const fromThrown = (error: unknown): ErrorResponse => {
  const status = (error as { status?: unknown }).status;
  const type = (error as { type?: unknown }).type;
  if (status === 413 || type === "entity.too.large") {
    return { status: 413, code: "PAYLOAD_TOO_LARGE", message: "The request body is larger than the limit." };
  }
  if (type === "entity.parse.failed" || (status === 400 && error instanceof SyntaxError)) {
    return { status: 400, code: "INVALID_REQUEST", message: "The body is not valid JSON." };
  }
  if (status === 415 || type === "encoding.unsupported" || type === "charset.unsupported") {
    return { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: "The body must be application/json in UTF-8." };
  }
  if (status === 400 && type === "request.size.invalid") {
    return { status: 400, code: "INVALID_REQUEST", message: "The body is shorter than its Content-Length." };
  }
  if (type === "request.aborted") return { status: 400, code: "INVALID_REQUEST", message: "The request was aborted." };
  return INTERNAL_ERROR;
};

export const errorBoundary = (logger: Logger): Middleware => async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    const response = fromThrown(error);
    if (response.status >= 500) logger.error({ requestId: ctx.state.requestId, err: error }, "unhandled error");
    sendError(ctx, response);
  }
};
