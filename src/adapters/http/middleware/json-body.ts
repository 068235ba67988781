import { createHash } from "node:crypto";
import type { Context } from "koa";
import { InvalidRequest } from "../../../application/errors.ts";
import { sendError } from "../api/respond.ts";
import { parseJsonBody } from "../bodies/parse-json-body.ts";
import { readBody } from "../bodies/request-body.ts";
import { errorResponseOf } from "../errors/error-catalog.ts";
import { UnsupportedMediaType } from "../errors/protocol-errors.ts";

/** A POST's JSON object, and the digest of its bytes when an Idempotency-Key needs one. */
export interface JsonBody {
  readonly value: object;
  readonly digest: string | undefined;
}

/** SHA-256 of the parts, each ended by a newline: the request fingerprints of idempotency.ts. */
export const sha256 = (...parts: ReadonlyArray<string | Buffer>): string => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\n");
  return hash.digest("hex");
};

/** Bodies from this size (images, in practice) are parsed in a turn of the event loop of their own. */
const OWN_TURN_BYTES = 1024 * 1024;

const malformed = (message: string) => errorResponseOf(new InvalidRequest({ message, details: [] }));

/**
 * POST bodies are JSON objects in UTF-8 within a byte limit: 415 for another type, charset or
 * content encoding, 413 over the limit, 400 if malformed (request-body.ts reads them). JSON.parse
 * creates own properties only, so a "__proto__" key pollutes nothing, and the bodies are decoded
 * into fresh objects by their Schemas; no multi-megabyte prototype scan. The raw bytes never leave
 * this function: the fingerprint an Idempotency-Key needs is taken here, so that nothing holds them
 * while the request waits for an engine (as much memory again as the parsed body). Undefined: the
 * request is answered.
 */
export const readJsonObject = async (ctx: Context, maxBodyBytes: number, fingerprint: boolean): Promise<JsonBody | undefined> => {
  const charset = ctx.request.charset.toLowerCase();
  const encoding = ctx.get("Content-Encoding").toLowerCase();
  if (!ctx.is("application/json") || (charset !== "" && charset !== "utf-8" && charset !== "utf8") || (encoding !== "" && encoding !== "identity")) {
    sendError(ctx, errorResponseOf(new UnsupportedMediaType({ message: "Send the body as Content-Type: application/json (UTF-8, no Content-Encoding)." })));
    return undefined;
  }
  const raw = await readBody(ctx, maxBodyBytes);
  if (!Buffer.isBuffer(raw)) {
    sendError(ctx, raw);
    return undefined;
  }
  // A large body was just joined from its chunks: it is parsed in the next turn of the event loop, not this one.
  if (raw.length >= OWN_TURN_BYTES) await new Promise((resolve) => setImmediate(resolve));
  let value: unknown;
  try {
    value = parseJsonBody(raw);
  } catch {
    sendError(ctx, malformed("The body is not valid JSON."));
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    sendError(ctx, malformed("The body must be a JSON object."));
    return undefined;
  }
  return { value, digest: fingerprint ? sha256(ctx.method, ctx.path, raw) : undefined };
};
