import type { Middleware } from "koa";
import { InvalidRequest } from "../../../application/errors.ts";
import { sendError } from "../api/respond.ts";
import { errorResponseOf, INTERNAL_ERROR } from "../errors/error-catalog.ts";

/**
 * Errors thrown by middleware (a bug) become the catalog's 500, never a stack trace. Body errors are
 * mapped where bodies are read (request-body.ts); a request whose connection went before it was
 * whole is still the client's 400 here, whatever was thrown about it.
 */
export const errorBoundary = (): Middleware => async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    const gone = ctx.req.destroyed && !ctx.req.complete;
    sendError(ctx, gone ? errorResponseOf(new InvalidRequest({ message: "The request was aborted.", details: [] })) : INTERNAL_ERROR, error);
  }
};
