import type { Middleware } from "koa";
import getRawBody from "raw-body";
import { parseJsonBody } from "../parse-json-body.ts";
import { sendError } from "../respond.ts";

declare module "koa" {
  interface Request {
    /** The parsed JSON body of a POST (set by `jsonBody`). */
    body?: unknown;
  }
}

/**
 * POST bodies are JSON objects in UTF-8 within a byte limit: 415 for another type, charset or
 * content encoding, 413 over the limit (known from Content-Length before a byte is read), 400 if
 * malformed. JSON.parse creates own properties only, so a "__proto__" key pollutes nothing, and
 * the bodies are decoded into fresh objects by their Schemas; no multi-megabyte prototype scan.
 */
export const jsonBody = (maxBodyBytes: number): Middleware => async (ctx, next) => {
  const charset = ctx.request.charset.toLowerCase();
  const encoding = ctx.get("Content-Encoding").toLowerCase();
  if (!ctx.is("application/json") || (charset !== "" && charset !== "utf-8" && charset !== "utf8") || (encoding !== "" && encoding !== "identity")) {
    return sendError(ctx, {
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: "Send the body as Content-Type: application/json (UTF-8, no Content-Encoding).",
    });
  }
  const raw = await getRawBody(ctx.req, { length: ctx.get("Content-Length") || null, limit: maxBodyBytes });
  let body: unknown;
  try {
    body = parseJsonBody(raw);
  } catch {
    return sendError(ctx, { status: 400, code: "INVALID_REQUEST", message: "The body is not valid JSON." });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return sendError(ctx, { status: 400, code: "INVALID_REQUEST", message: "The body must be a JSON object." });
  }
  ctx.request.body = body;
  await next();
};
