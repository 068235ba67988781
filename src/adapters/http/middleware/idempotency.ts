import { createHash } from "node:crypto";
import { Schema } from "effect";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import type { Principal } from "../../../application/authenticate.ts";
import { InvalidRequest } from "../../../application/errors.ts";
import { beginIdempotentRequest, finishIdempotentRequest, type IdempotentRequest } from "../../../application/idempotent-requests.ts";
import type { ResponseToKeep } from "../../../application/kept-responses.ts";
import type { AppServices } from "../app-services.ts";
import { clientGone, type RunEffect } from "../effect-runner.ts";
import { errorResponseOf, isReplayable as keeps } from "../error-response.ts";
import { IdempotencyKey } from "../idempotency-key.ts";
import { sendError, sendFailure } from "../respond.ts";

const sha256 = (...parts: ReadonlyArray<string | Buffer>): string => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\n");
  return hash.digest("hex");
};

const isKey = Schema.is(IdempotencyKey);

/**
 * `Idempotency-Key` on a POST, after authentication and the body: the first request with a key
 * runs and its response is kept for 24 hours (the body in the result store, its digest in the
 * key's events); a repeat gets it again byte for byte, marked `Idempotent-Replayed: true`, without
 * running or charging anything.
 */
export const idempotency =
  (run: RunEffect<AppServices>, logger: Logger): Middleware =>
  async (ctx, next) => {
    // The raw body is needed only for the fingerprint: let it go now rather than hold it while
    // the request waits for an engine (as much memory again as the parsed body).
    const raw = ctx.state.rawBody;
    delete ctx.state.rawBody;
    const key = ctx.headers["idempotency-key"];
    if (key === undefined) return next();
    if (typeof key !== "string" || !isKey(key)) {
      const message = "Idempotency-Key must be 1 to 255 printable ASCII characters.";
      return sendError(ctx, errorResponseOf(new InvalidRequest({ message, details: [{ path: "Idempotency-Key", message }] })));
    }
    const principal: Principal = ctx.state.principal!;
    const request: IdempotentRequest = {
      accountId: principal.account.accountId,
      keyDigest: sha256(key),
      fingerprint: sha256(ctx.method, ctx.path, raw ?? ""),
      actor: { kind: "api-key", keyId: principal.key.keyId, accountId: principal.account.accountId },
    };
    const begun = await run(beginIdempotentRequest(request), { signal: clientGone(ctx) });
    if (begun._tag === "Failure") return sendFailure(ctx, begun.cause);
    if (begun.value._tag === "Replay") {
      ctx.status = begun.value.response.status;
      ctx.type = "json";
      ctx.body = begun.value.response.json;
      ctx.set("Idempotent-Replayed", "true");
      return;
    }
    let recorded: ResponseToKeep | undefined;
    try {
      await next();
      if (keeps(ctx.status) && typeof ctx.body === "object" && ctx.body !== null && !Buffer.isBuffer(ctx.body)) {
        recorded = { status: ctx.status, body: ctx.body };
      }
    } finally {
      const finished = await run(finishIdempotentRequest(request, begun.value, recorded));
      // The response stands; the key stays held until its lease passes, then a repeat runs again.
      if (finished._tag === "Failure") logger.warn({ requestId: ctx.state.requestId, cause: String(finished.cause) }, "idempotency record not finished");
    }
  };
