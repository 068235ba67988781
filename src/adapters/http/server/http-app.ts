import type Router from "@koa/router";
import Koa from "koa";
import type { Logger } from "pino";
import { NotFound } from "../../../application/errors.ts";
import { echo } from "../../../domain/echo.ts";
import { consoleRoutes } from "../../console/console-routes.ts";
import { ImageTransformationApi } from "../api/api-definition.ts";
import { type ApiHandlerOptions, apiHandlers } from "../api/api-handlers.ts";
import { mount, type MountOptions } from "../api/mount.ts";
import { sendError, sendSuccess } from "../api/respond.ts";
import { HealthResponse } from "../api/response-schemas.ts";
import { servedDocument } from "../api/served-document.ts";
import { errorResponseOf } from "../errors/error-catalog.ts";
import { MethodNotAllowed } from "../errors/protocol-errors.ts";
import { accessLog } from "../middleware/access-log.ts";
import { clientAddress } from "../middleware/client-address.ts";
import { errorBoundary } from "../middleware/error-boundary.ts";
import { requestId } from "../middleware/request-id.ts";
import { securityHeaders } from "../middleware/security-headers.ts";
import { unreadUpload } from "../middleware/unread-upload.ts";
import { type TrustProxy, trustsAnyProxy } from "./forwarded-client.ts";
import { requireForwardedHttps } from "./plain-http-refusal.ts";

export interface HttpAppOptions extends Omit<MountOptions, "prefix">, ApiHandlerOptions {
  readonly logger: Logger;
  readonly openApiDocument: object;
  /** Behind TLS-terminating proxies: which X-Forwarded-* entries to believe; requests that came in over HTTP are refused. */
  readonly trustProxy: TrustProxy;
  /** Request metrics and the request span (observability.ts), mounted before everything else. */
  readonly instrumentation?: ReadonlyArray<Koa.Middleware>;
  /** Seals the account console's one-time cookie (see console/new-key-flash.ts). */
  readonly consoleCookieKey: Buffer;
}

/**
 * A router asked only for the paths under its prefix: each router tries every one of its routes'
 * patterns on every request it sees. Case-insensitive, as the routers match.
 */
const under = (prefix: string, router: Router): Koa.Middleware => {
  const routes = router.routes() as Koa.Middleware;
  return (ctx, next) => (ctx.path.slice(0, prefix.length).toLowerCase() === prefix ? routes(ctx, next) : next());
};

/** The HTTPS application. Read top to bottom: what every request goes through, then the routes. */
export const createHttpApp = (options: HttpAppOptions): Koa => {
  const app = new Koa();
  const api = mount(ImageTransformationApi, apiHandlers(options), { ...options, prefix: "/api" });
  // Serialized and compressed once: it is the largest body the service sends.
  api.get("/openapi.json", servedDocument(JSON.stringify(options.openApiDocument), "application/json; charset=utf-8"));

  app.use(unreadUpload());
  for (const middleware of options.instrumentation ?? []) app.use(middleware);
  app.use(clientAddress(options.trustProxy));
  app.use(requestId());
  app.use(accessLog(options.logger));
  app.use(errorBoundary());
  if (trustsAnyProxy(options.trustProxy)) app.use(requireForwardedHttps(new URL(options.publicBaseUrl)));
  app.use(securityHeaders());
  app.use(async (ctx, next) => (ctx.path === "/healthz" && ctx.method === "GET" ? sendSuccess(ctx, HealthResponse, { status: "ok" }) : next()));
  app.use(under("/console", consoleRoutes({ run: options.run, publicBaseUrl: options.publicBaseUrl, cookieKey: options.consoleCookieKey })));
  app.use(under("/api", api));
  app.use(async (ctx) => {
    // Any API path: a known path with another method is 405, not 404.
    const matched = api.match(ctx.path, ctx.method);
    const [method, path] = [echo(ctx.method), echo(ctx.path)];
    if (matched.path.length > 0 && !matched.route) {
      return sendError(ctx, errorResponseOf(new MethodNotAllowed({ method, path, allow: [...new Set(matched.path.flatMap((layer) => layer.methods))] })));
    }
    sendError(ctx, errorResponseOf(new NotFound({ message: `No route for ${method} ${path}.` })));
  });
  app.on("error", (error: unknown) => options.logger.warn({ err: error }, "connection error"));
  return app;
};
