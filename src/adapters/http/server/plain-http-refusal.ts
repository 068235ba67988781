import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Middleware } from "koa";
import { errorBody } from "../api/respond.ts";
import { errorResponseOf } from "../errors/error-catalog.ts";
import { HttpsRequired } from "../errors/protocol-errors.ts";
import { logRequest } from "../middleware/access-log.ts";
import type { Logger } from "./logger.ts";

/**
 * Plain HTTP only refuses (docs/api-decisions.md): GET/HEAD are redirected (308) to the same path on
 * HTTPS; anything else gets 403 HTTPS_REQUIRED. No key check, no quota, no body read.
 */
export interface Refusal {
  readonly status: number;
  /** The catalog's code of a refusal that is an error (not a redirect). */
  readonly code?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Where a refused GET goes: the same path under the public base URL, never a host the request names. */
const redirectTarget = (url: string, publicBase: URL): string => {
  const path = url.startsWith("/") ? url : `/${url}`;
  return `${publicBase.origin}${publicBase.pathname.replace(/\/$/, "")}${path}`;
};

export const refusalFor = (method: string, url: string, publicBase: URL, requestId: string): Refusal => {
  if (method === "GET" || method === "HEAD") {
    return { status: 308, headers: { Location: redirectTarget(url, publicBase), "Content-Type": "application/json" }, body: "" };
  }
  const refused = errorResponseOf(new HttpsRequired());
  return {
    status: refused.status,
    code: refused.code,
    headers: { "Content-Type": "application/json; charset=utf-8" },
    body: JSON.stringify(errorBody(refused, requestId)),
  };
};

/** The request handler of the plain-HTTP listener; each refusal is logged like the app's requests (without the path, which may hold a secret). */
export const plainHttpHandler = (publicBase: URL, logger: Logger) => (req: IncomingMessage, res: ServerResponse) => {
  const requestId = randomUUID();
  const refusal = refusalFor(req.method ?? "GET", req.url ?? "/", publicBase, requestId);
  // The body is never read: close the connection instead of draining it.
  res.writeHead(refusal.status, { ...refusal.headers, "X-Request-Id": requestId, Connection: "close" });
  res.end(req.method === "HEAD" ? undefined : refusal.body);
  logRequest(logger, {
    requestId,
    method: req.method,
    status: refusal.status,
    ip: req.socket.remoteAddress,
    ...(refusal.status >= 400 ? { error: refusal.code } : {}),
  });
};

/**
 * Behind a TLS-terminating proxy: a request that reached the proxy over plain HTTP is refused the
 * same way. The protocol is the trusted proxy's entry (see client-address.ts), not the client's.
 */
export const requireForwardedHttps =
  (publicBase: URL): Middleware =>
  async (ctx, next) => {
    if (ctx.state.forwardedProtocol === "https") return next();
    const refusal = refusalFor(ctx.method, ctx.url, publicBase, ctx.state.requestId);
    ctx.status = refusal.status;
    ctx.set(refusal.headers);
    ctx.body = refusal.body === "" ? "" : JSON.parse(refusal.body);
  };
