import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";

/**
 * Every response carries X-Request-Id, always the service's own id: a billable request's ledger
 * records it as its requestId, so the id a customer holds finds its receipts. A client's own
 * X-Request-Id, when well-formed, is only logged (clientRequestId): one a client chose could
 * repeat, and a ledger's request id must not.
 */
const CLIENT_ID = /^[A-Za-z0-9._-]{8,64}$/;

export const requestId = (): Middleware => (ctx, next) => {
  const offered = ctx.get("X-Request-Id");
  if (CLIENT_ID.test(offered)) ctx.state.clientRequestId = offered;
  const id = randomUUID();
  ctx.state.requestId = id;
  // Node's setHeader, not Koa's ctx.set: the same header without Koa's per-call entry arrays.
  ctx.res.setHeader("X-Request-Id", id);
  return next();
};
