import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "koa";
import { bearerCredential } from "../../../application/access/bearer-credential.ts";
import { recordFailedAuth } from "../../../application/access/failed-auth-throttle.ts";
import { RateLimited, Unauthorized } from "../../../application/errors.ts";
import type { RateLimiter } from "../../../ports/rate-limiter.ts";
import type { RunEffect } from "../api/effect-runner.ts";
import { sendError, sendFailure } from "../api/respond.ts";
import { errorResponseOf } from "../errors/error-catalog.ts";

/** Hashing both sides first gives equal lengths, so the comparison takes the same time whatever was sent. */
const sameSecret = (presented: string, expected: string): boolean =>
  timingSafeEqual(createHash("sha256").update(presented).digest(), createHash("sha256").update(expected).digest());

/**
 * Operator-only routes: `Authorization: Bearer <OPERATOR_TOKEN>`. API keys do not open them, and
 * with no token configured nothing does. Failures count against the client address like failed
 * API keys, so guessing stays slow. False: the request is answered.
 */
export const operatorCredential =
  (token: string | undefined, run: RunEffect<RateLimiter>) =>
  async (ctx: Context): Promise<boolean> => {
    const presented = bearerCredential(ctx.get("Authorization"));
    if (token !== undefined && presented !== undefined && sameSecret(presented, token)) return true;
    const exit = await run(recordFailedAuth(ctx.ip));
    if (exit._tag === "Failure") {
      sendFailure(ctx, exit.cause);
      return false;
    }
    const refusal = exit.value.allowed
      ? new Unauthorized({ message: "This route needs the operator credential." })
      : new RateLimited({ retryAfterSeconds: exit.value.retryAfterSeconds });
    sendError(ctx, errorResponseOf(refusal));
    return false;
  };
