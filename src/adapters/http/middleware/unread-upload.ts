import type { Middleware } from "koa";
import { declaredLength } from "../bodies/request-body.ts";
import { answerBeforeBody, MAX_DISCARDED_BYTES } from "../server/answer-before-body.ts";
import { holdsBody } from "../server/expect-continue.ts";

/**
 * A request refused before its body was read (401, 429, 503 by admission, 413) is answered at
 * once, and its connection kept while the rest of the upload arrives and is dropped
 * (answer-before-body.ts). A larger upload than MAX_DISCARDED_BYTES is not worth that: its
 * connection is closed as Node does. Mounted first, so that it sees the response every other
 * middleware made.
 */
export const unreadUpload = (): Middleware => async (ctx, next) => {
  await next();
  const { req, res } = ctx;
  const declared = declaredLength(req) ?? 0;
  const hasBody = declared > 0 || req.headers["transfer-encoding"] !== undefined;
  // A read body needs nothing; a client waiting for 100 Continue has sent nothing.
  const read = req.complete || req.readableEnded || req.listenerCount("data") > 0;
  if (!hasBody || read) return;
  // Its body will not come: close rather than leave the connection waiting for it.
  if (holdsBody(req)) return void ctx.set("Connection", "close");
  if (declared > MAX_DISCARDED_BYTES || !ctx.writable || !isPlainBody(ctx.body)) return;

  const body =
    ctx.body === null || ctx.body === undefined ? "" : Buffer.isBuffer(ctx.body) || typeof ctx.body === "string" ? ctx.body : JSON.stringify(ctx.body);
  ctx.respond = false;
  res.statusCode = ctx.status;
  answerBeforeBody(req, res, body);
};

const isPlainBody = (body: unknown): boolean =>
  body === null ||
  body === undefined ||
  typeof body === "string" ||
  Buffer.isBuffer(body) ||
  (typeof body === "object" && typeof (body as { pipe?: unknown }).pipe !== "function");
