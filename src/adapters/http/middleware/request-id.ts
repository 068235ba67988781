import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";

/** Every response carries X-Request-Id: the client's own when well-formed, else a new one. */
const CLIENT_ID = /^[A-Za-z0-9._-]{8,64}$/;

export const requestId = (): Middleware => async (ctx, next) => {
  const offered = ctx.get("X-Request-Id");
  ctx.state.requestId = CLIENT_ID.test(offered) ? offered : randomUUID();
  ctx.set("X-Request-Id", ctx.state.requestId);
  await next();
};
