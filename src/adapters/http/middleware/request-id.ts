import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";

/** Every response carries X-Request-Id: the client's own when well-formed, else a new one. */
const CLIENT_ID = /^[A-Za-z0-9._-]{8,64}$/;

export const requestId = (): Middleware => (ctx, next) => {
  const offered = ctx.get("X-Request-Id");
  const id = CLIENT_ID.test(offered) ? offered : randomUUID();
  ctx.state.requestId = id;
  // Node's setHeader, not Koa's ctx.set: the same header without Koa's per-call entry arrays.
  ctx.res.setHeader("X-Request-Id", id);
  return next();
};
