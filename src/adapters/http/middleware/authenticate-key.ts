import type { Middleware } from "koa";
import { admitRequest } from "../../../application/authenticate.ts";
import { RateLimited } from "../../../application/errors.ts";
import type { KeyDirectory } from "../../../application/key-directory.ts";
import type { ServiceSettings } from "../../../application/settings.ts";
import type { RateLimiter } from "../../../ports/rate-limiter.ts";
import type { SecretHasher } from "../../../ports/secret-hasher.ts";
import type { RunEffect } from "../effect-runner.ts";
import { errorResponseOf } from "../error-response.ts";
import { sendError, sendFailure } from "../respond.ts";

/** Admits a keyed request or answers 401/429; every admitted response carries the IETF RateLimit fields. */
export const authenticateKey =
  (run: RunEffect<KeyDirectory | SecretHasher | RateLimiter | ServiceSettings>): Middleware =>
  async (ctx, next) => {
    const exit = await run(admitRequest(ctx.get("Authorization") || undefined, ctx.ip));
    if (exit._tag === "Failure") return sendFailure(ctx, exit.cause);
    const { principal, rate } = exit.value;
    ctx.state.principal = principal;
    const { policy, decision } = rate;
    ctx.set("RateLimit-Policy", `"per-key";q=${policy.burst};w=${Math.round((policy.burst * 60) / policy.perMinute)}`);
    ctx.set("RateLimit", `"per-key";r=${decision.remaining};t=${decision.resetSeconds}`);
    if (!decision.allowed) return sendError(ctx, errorResponseOf(new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds })));
    await next();
  };
