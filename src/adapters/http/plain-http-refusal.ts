import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Middleware } from "koa";

/**
 * Plain HTTP only refuses (decisions.md): GET/HEAD are redirected (308) to the same path on
 * HTTPS; anything else gets 403 HTTPS_REQUIRED. No key check, no quota, no body read.
 */
export interface Refusal {
  readonly status: 308 | 403;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const HOSTNAME = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253})(?::\d{1,5})?$/;

export const refusalFor = (method: string, hostHeader: string | undefined, url: string, httpsOrigin: URL): Refusal => {
  if (method === "GET" || method === "HEAD") {
    const hostname = HOSTNAME.exec(hostHeader ?? "")?.[1] ?? httpsOrigin.hostname;
    const target = new URL(url.startsWith("/") ? url : `/${url}`, httpsOrigin);
    target.hostname = hostname;
    return { status: 308, headers: { Location: target.href, "Content-Type": "application/json" }, body: "" };
  }
  return {
    status: 403,
    headers: { "Content-Type": "application/json; charset=utf-8" },
    body: JSON.stringify({ success: false, error: { code: "HTTPS_REQUIRED", message: "This API is served over HTTPS only." } }),
  };
};

/** The request handler of the plain-HTTP listener. */
export const plainHttpHandler = (httpsOrigin: URL) => (req: IncomingMessage, res: ServerResponse) => {
  const refusal = refusalFor(req.method ?? "GET", req.headers.host, req.url ?? "/", httpsOrigin);
  // The body is never read: close the connection instead of draining it.
  res.writeHead(refusal.status, { ...refusal.headers, "X-Request-Id": randomUUID(), Connection: "close" });
  res.end(req.method === "HEAD" ? undefined : refusal.body);
};

/** Behind a TLS-terminating proxy: a request that reached the proxy over plain HTTP is refused the same way. */
export const requireForwardedHttps = (httpsOrigin: URL): Middleware => async (ctx, next) => {
  const proto = ctx.get("X-Forwarded-Proto").split(",")[0]?.trim().toLowerCase();
  if (proto === "https") return next();
  const refusal = refusalFor(ctx.method, ctx.get("Host"), ctx.url, httpsOrigin);
  ctx.status = refusal.status;
  ctx.set(refusal.headers);
  ctx.body = refusal.body === "" ? "" : JSON.parse(refusal.body);
};
