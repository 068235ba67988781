import type { Context, Middleware } from "koa";
import getRawBody from "raw-body";
import { InvalidRequest } from "../../../application/errors.ts";
import { errorResponseOf } from "../error-response.ts";
import { readyForBody } from "../expect-continue.ts";
import { UnsupportedMediaType } from "../http-errors.ts";
import { parseJsonBody } from "../parse-json-body.ts";
import { sendError } from "../respond.ts";

declare module "koa" {
  interface Request {
    /** The parsed JSON body of a POST (set by `jsonBody`). */
    body?: unknown;
  }
}

/** How much a route reads: a try-on's two images, or one image (generate, OCR). */
export interface BodyLimits {
  readonly twoImages: number;
  readonly oneImage: number;
}

const malformed = (message: string) => errorResponseOf(new InvalidRequest({ message, details: [] }));

/**
 * POST bodies are JSON objects in UTF-8 within a byte limit: 415 for another type, charset or
 * content encoding, 413 over the limit (known from Content-Length before a byte is read), 400 if
 * malformed. JSON.parse creates own properties only, so a "__proto__" key pollutes nothing, and
 * the bodies are decoded into fresh objects by their Schemas; no multi-megabyte prototype scan.
 * Errors of reading the body (over the limit, aborted) are thrown to the error boundary.
 */
export const jsonBody =
  (maxBodyBytes: number): Middleware =>
  async (ctx, next) => {
    if (await readJsonObject(ctx, maxBodyBytes)) await next();
  };

/**
 * Reads the body into `ctx.request.body` (and its bytes into `ctx.state.rawBody`), or answers the
 * request; true when read. Apart from the middleware, so that no local of the middleware's frame
 * keeps the raw bytes alive while the request goes on (idempotency.ts lets them go).
 */
const readJsonObject = async (ctx: Context, maxBodyBytes: number): Promise<boolean> => {
  const charset = ctx.request.charset.toLowerCase();
  const encoding = ctx.get("Content-Encoding").toLowerCase();
  if (!ctx.is("application/json") || (charset !== "" && charset !== "utf-8" && charset !== "utf8") || (encoding !== "" && encoding !== "identity")) {
    sendError(ctx, errorResponseOf(new UnsupportedMediaType({ message: "Send the body as Content-Type: application/json (UTF-8, no Content-Encoding)." })));
    return false;
  }
  // A body declared over the limit is refused by the reader without being asked for.
  if (!(Number(ctx.get("Content-Length")) > maxBodyBytes)) readyForBody(ctx.req, ctx.res);
  const raw = await getRawBody(ctx.req, { length: ctx.get("Content-Length") || null, limit: maxBodyBytes });
  let body: unknown;
  try {
    body = parseJsonBody(raw);
  } catch {
    sendError(ctx, malformed("The body is not valid JSON."));
    return false;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    sendError(ctx, malformed("The body must be a JSON object."));
    return false;
  }
  ctx.request.body = body;
  ctx.state.rawBody = raw;
  return true;
};
