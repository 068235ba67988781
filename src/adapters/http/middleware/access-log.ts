import type { Middleware } from "koa";
import type { Logger } from "pino";
import { echo } from "../../../domain/echo.ts";

/** Paths are the client's text: a line quotes at most this many characters of one (docs/security.md). */
export const LOGGED_PATH_MAX_CHARACTERS = 256;

/**
 * A request's line: at level error for a 5xx that is a fault, at warn for one that answers load
 * (`overload`: engines full, a deadline passed, a rollout: a burst's 503s are no page for an
 * operator), else info. Requests refused outside the app (servers.ts) write theirs here too.
 */
export const logRequest = (logger: Logger, line: { readonly status: number; readonly overload?: true | undefined } & Record<string, unknown>): void => {
  if (line.status >= 500 && line.overload === true) logger.warn(line, "request refused under load");
  else if (line.status >= 500) logger.error(line, "request failed");
  else logger.info(line, "request");
};

/**
 * One line per request, written when the response is finished: the one place a request is logged,
 * failures included (their code, and for a 5xx the cause, at level error).
 */
export const accessLog =
  (logger: Logger): Middleware =>
  async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const line = {
        requestId: ctx.state.requestId,
        ...(ctx.state.clientRequestId === undefined ? {} : { clientRequestId: ctx.state.clientRequestId }),
        method: ctx.method,
        // A route whose path holds a secret (a console invitation) names a redacted one.
        path: echo(ctx.state.logPath ?? ctx.path, LOGGED_PATH_MAX_CHARACTERS),
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        keyId: ctx.state.principal?.key.keyId,
        accountId: ctx.state.principal?.account.accountId,
        ip: ctx.ip,
        ...(ctx.state.failure ? { error: ctx.state.failure.code, overload: ctx.state.failure.overload, cause: ctx.state.failure.cause } : {}),
      };
      logRequest(logger, line);
    }
  };
