import { createHash } from "node:crypto";
import zlib from "node:zlib";
import type { Context } from "koa";

/**
 * A document the service sends unchanged for its whole life (the OpenAPI document, ~200 KB of
 * JSON): compressed once at start, brotli and gzip (~15 KB either way; a few milliseconds once,
 * not per request), and tagged, so that a client or cache that holds it revalidates for a 304
 * and one that does not fetches a fifteenth of it. The tag is weak: the encodings are the same
 * document, which is what If-None-Match compares.
 */
export const servedDocument = (body: string, contentType: string) => {
  const identity = Buffer.from(body);
  const etag = `W/"${createHash("sha256").update(identity).digest("base64url").slice(0, 32)}"`;
  const encoded = {
    br: zlib.brotliCompressSync(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }),
    gzip: zlib.gzipSync(identity, { level: 9 }),
  };
  return (ctx: Context) => {
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
    if (encoding === "br" || encoding === "gzip") {
      ctx.set("Content-Encoding", encoding);
      ctx.body = encoded[encoding];
    } else ctx.body = identity;
  };
};
