import type { Middleware } from "koa";
import { forwardedClient, type TrustProxy } from "../server/forwarded-client.ts";

/**
 * Sets `ctx.ip` to the client as the trusted proxies report it (the socket's peer when none is
 * trusted) and `ctx.state.forwardedProtocol` to the protocol they saw. Koa's own proxy mode
 * reads the leftmost entries, which the client writes, so it stays off.
 */
export const clientAddress =
  (trust: TrustProxy): Middleware =>
  async (ctx, next) => {
    const client = forwardedClient(trust, ctx.req.socket.remoteAddress ?? "", ctx.get("X-Forwarded-For"), ctx.get("X-Forwarded-Proto"));
    ctx.request.ip = client.address;
    ctx.state.forwardedProtocol = client.protocol;
    await next();
  };
