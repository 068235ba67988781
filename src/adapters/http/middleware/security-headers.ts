import type { Middleware } from "koa";

export const API_VERSION = "2026-11-22";

/** Headers on every HTTPS response: HSTS, the API version, and no caching of API data. */
export const securityHeaders = (): Middleware => async (ctx, next) => {
  ctx.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  ctx.set("API-Version", API_VERSION);
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Cache-Control", "no-store");
  await next();
};
