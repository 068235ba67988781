import { createHash } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { Context } from "koa";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** The compressed form, or undefined if compressing failed (the document is then sent as it is). */
const settled = (compressing: Promise<Buffer>): Promise<Buffer | undefined> => compressing.catch(() => undefined);

/**
 * A document the service sends unchanged for its whole life (the OpenAPI document, ~200 KB of
 * JSON): compressed once, brotli and gzip (~15 KB either way), and tagged, so that a client or
 * cache that holds it revalidates for a 304 and one that does not fetches a fifteenth of it. The
 * tag is weak: the encodings are the same document, which is what If-None-Match compares. The
 * compression runs in libuv's pool from the start: done on the event loop, brotli at quality 9
 * held every start for ~150 ms (measured on the 2-core machines).
 */
export const servedDocument = (body: string, contentType: string) => {
  const identity = Buffer.from(body);
  const etag = `W/"${createHash("sha256").update(identity).digest("base64url").slice(0, 32)}"`;
  const encoded = {
    br: settled(brotli(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } })),
    gzip: settled(gzip(identity, { level: 9 })),
  };
  return async (ctx: Context) => {
    ctx.status = 200;
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.set("ETag", etag);
    ctx.vary("Accept-Encoding");
    ctx.type = contentType;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    const encoding = ctx.acceptsEncodings("br", "gzip", "identity");
    const compressed = encoding === "br" || encoding === "gzip" ? await encoded[encoding] : undefined;
    if (compressed !== undefined) ctx.set("Content-Encoding", encoding as string);
    ctx.body = compressed ?? identity;
  };
};
