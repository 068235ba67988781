import Koa from "koa";
import type { Logger } from "pino";
import { apiRoutes, type ApiRoutesOptions } from "./api-routes.ts";
import { auditRoutes } from "./audit-routes.ts";
import { accessLog } from "./middleware/access-log.ts";
import { errorBoundary } from "./middleware/error-boundary.ts";
import { requestId } from "./middleware/request-id.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { requireForwardedHttps } from "./plain-http-refusal.ts";
import { sendData, sendError } from "./respond.ts";

export interface HttpAppOptions extends ApiRoutesOptions {
  readonly logger: Logger;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-* and refuse requests that came in over HTTP. */
  readonly trustProxy: boolean;
  /** OPERATOR_TOKEN: opens the audit API; undefined keeps it closed. */
  readonly operatorToken: string | undefined;
}

/** The HTTPS application. Read top to bottom: what every request goes through, then the routes. */
export const createHttpApp = (options: HttpAppOptions): Koa => {
  const app = new Koa({ proxy: options.trustProxy });
  const api = apiRoutes(options);

  app.use(requestId());
  app.use(accessLog(options.logger));
  app.use(errorBoundary(options.logger));
  if (options.trustProxy) app.use(requireForwardedHttps(new URL(options.publicBaseUrl)));
  app.use(securityHeaders());
  app.use(async (ctx, next) => (ctx.path === "/healthz" && ctx.method === "GET" ? sendData(ctx, { status: "ok" }) : next()));
  app.use(auditRoutes({ run: options.run, logger: options.logger, operatorToken: options.operatorToken }).routes());
  app.use(api.routes());
  app.use(async (ctx) => {
    const matched = api.match(ctx.path, ctx.method);
    if (matched.path.length > 0 && !matched.route) {
      ctx.set("Allow", [...new Set(matched.path.flatMap((layer) => layer.methods))].join(", "));
      return sendError(ctx, { status: 405, code: "METHOD_NOT_ALLOWED", message: `${ctx.method} is not allowed on ${ctx.path}.` });
    }
    sendError(ctx, { status: 404, code: "NOT_FOUND", message: `No route for ${ctx.method} ${ctx.path}.` });
  });
  app.on("error", (error: unknown) => options.logger.warn({ err: error }, "connection error"));
  return app;
};
