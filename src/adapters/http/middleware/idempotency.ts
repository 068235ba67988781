import { Schema } from "effect";
import type { Context } from "koa";
import type { Logger } from "pino";
import type { Principal } from "../../../application/access/authenticate.ts";
import { InvalidRequest } from "../../../application/errors.ts";
import { beginIdempotentRequest, finishIdempotentRequest, type IdempotentRequest } from "../../../application/idempotency/idempotent-requests.ts";
import type { ResponseToKeep } from "../../../application/idempotency/kept-responses.ts";
import type { AppServices } from "../api/app-services.ts";
import { clientGone, type RunEffect } from "../api/effect-runner.ts";
import { IdempotencyKey } from "../api/idempotency-key.ts";
import { sendError, sendFailure } from "../api/respond.ts";
import { errorResponseOf, isReplayable as keeps } from "../errors/error-catalog.ts";
import { sha256 } from "./json-body.ts";

const isKey = Schema.is(IdempotencyKey);

/** The request's Idempotency-Key header, when it sent one. */
export const idempotencyKeyOf = (ctx: Context): string | ReadonlyArray<string> | undefined => ctx.headers["idempotency-key"];

/**
 * `Idempotency-Key` on a POST, after authentication and the body (its `digest`, taken by
 * json-body.ts): the first request with a key runs `handle` and its response is kept for 24 hours
 * (the body in the result store, its digest in the key's events); a repeat gets it again byte for
 * byte, marked `Idempotent-Replayed: true`, without running or charging anything; `replayHeaders`
 * sets again the headers the body determines.
 */
export const idempotent =
  (run: RunEffect<AppServices>, logger: Logger, replayHeaders: (ctx: Context, body: unknown) => void = () => {}) =>
  async (ctx: Context, principal: Principal, digest: string | undefined, handle: () => Promise<void>): Promise<void> => {
    const key = idempotencyKeyOf(ctx);
    if (key === undefined) return handle();
    if (typeof key !== "string" || !isKey(key)) {
      const message = "Idempotency-Key must be 1 to 255 printable ASCII characters.";
      return sendError(ctx, errorResponseOf(new InvalidRequest({ message, details: [{ path: "Idempotency-Key", message }] })));
    }
    const request: IdempotentRequest = {
      accountId: principal.account.accountId,
      keyDigest: sha256(key),
      fingerprint: digest ?? sha256(ctx.method, ctx.path, ""),
      actor: { kind: "api-key", keyId: principal.key.keyId, accountId: principal.account.accountId },
    };
    const begun = await run(beginIdempotentRequest(request), { signal: clientGone(ctx) });
    if (begun._tag === "Failure") return sendFailure(ctx, begun.cause);
    if (begun.value._tag === "Replay") {
      ctx.status = begun.value.response.status;
      ctx.type = "json";
      ctx.body = begun.value.response.json;
      ctx.set("Idempotent-Replayed", "true");
      // Headers a response's body determines (a 202's Location names its job) are made again from it.
      replayHeaders(ctx, JSON.parse(begun.value.response.json));
      return;
    }
    let recorded: ResponseToKeep | undefined;
    try {
      await handle();
      if (keeps(ctx.status) && typeof ctx.body === "object" && ctx.body !== null && !Buffer.isBuffer(ctx.body)) {
        recorded = { status: ctx.status, body: ctx.body };
      }
    } finally {
      const finished = await run(finishIdempotentRequest(request, begun.value, recorded));
      // The response stands; the key stays held until its lease passes, then a repeat runs again.
      if (finished._tag === "Failure") logger.warn({ requestId: ctx.state.requestId, cause: String(finished.cause) }, "idempotency record not finished");
    }
  };
