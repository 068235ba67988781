import type { Middleware } from "koa";

export const API_VERSION = "2026-11-22";

/** Headers on every HTTPS response: HSTS, the API version, and no caching of API data. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
  "API-Version": API_VERSION,
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
};

const HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

// Set on Node's response directly: Koa's ctx.set(object) builds two arrays of entries per call, on every request.
export const securityHeaders = (): Middleware => (ctx, next) => {
  for (const [name, value] of HEADER_ENTRIES) ctx.res.setHeader(name, value);
  return next();
};
