import type { IncomingMessage } from "node:http";
import type { Middleware } from "koa";
import { InvalidRequest } from "../../../application/errors.ts";
import { type ErrorResponse, errorResponseOf, INTERNAL_ERROR } from "../error-response.ts";
import { BodyTooLarge, UnsupportedMediaType } from "../http-errors.ts";
import { sendError } from "../respond.ts";

const aborted = () => errorResponseOf(new InvalidRequest({ message: "The request was aborted.", details: [] }));

/**
 * Errors thrown by middleware (reading the body, a bug) become cataloged errors, never a stack trace.
 * A request whose connection went before its body was whole (a framing error Node could not parse,
 * the client leaving) is the client's 400 whatever the reader threw: one that starts reading after the
 * connection is gone is told the stream "is not readable", and that is no fault of ours.
 */
const fromThrown = (error: unknown, req: IncomingMessage): ErrorResponse => {
  if (req.destroyed && !req.complete) return aborted();
  const { status, type, limit } = (typeof error === "object" && error !== null ? error : {}) as { status?: unknown; type?: unknown; limit?: unknown };
  if (status === 413 || type === "entity.too.large") return errorResponseOf(new BodyTooLarge({ limitBytes: Number(limit) || 0 }));
  if (type === "entity.parse.failed" || (status === 400 && error instanceof SyntaxError)) {
    return errorResponseOf(new InvalidRequest({ message: "The body is not valid JSON.", details: [] }));
  }
  if (status === 415 || type === "encoding.unsupported" || type === "charset.unsupported") {
    return errorResponseOf(new UnsupportedMediaType({ message: "The body must be application/json in UTF-8." }));
  }
  if (status === 400 && type === "request.size.invalid") {
    return errorResponseOf(new InvalidRequest({ message: "The body is shorter than its Content-Length.", details: [] }));
  }
  if (type === "request.aborted") return aborted();
  return INTERNAL_ERROR;
};

export const errorBoundary = (): Middleware => async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    sendError(ctx, fromThrown(error, ctx.req), error);
  }
};
