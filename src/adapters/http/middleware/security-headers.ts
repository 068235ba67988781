import type { Middleware } from "koa";

export const API_VERSION = "2026-11-22";

/** Headers on every HTTPS response: HSTS, the API version, and no caching of API data. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
  "API-Version": API_VERSION,
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
};

export const securityHeaders = (): Middleware => async (ctx, next) => {
  ctx.set(SECURITY_HEADERS);
  await next();
};
