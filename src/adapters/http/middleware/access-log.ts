import type { Middleware } from "koa";
import type { Logger } from "pino";

/** One line per request, written when the response is finished. */
export const accessLog = (logger: Logger): Middleware => async (ctx, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    logger.info({
      requestId: ctx.state.requestId,
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      keyId: ctx.state.principal?.key.keyId,
      accountId: ctx.state.principal?.account.accountId,
      ip: ctx.ip,
    }, "request");
  }
};
