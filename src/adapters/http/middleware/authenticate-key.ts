import type { Context } from "koa";
import { admitRequest, type Principal } from "../../../application/authenticate.ts";
import { RateLimited } from "../../../application/errors.ts";
import type { KeyDirectory } from "../../../application/key-directory.ts";
import type { ServiceSettings } from "../../../application/settings.ts";
import type { RateLimiter } from "../../../ports/rate-limiter.ts";
import type { SecretHasher } from "../../../ports/secret-hasher.ts";
import type { RunEffect } from "../effect-runner.ts";
import { errorResponseOf } from "../error-response.ts";
import { sendError, sendFailure } from "../respond.ts";

/**
 * Admits a keyed request, giving its principal, or answers 401/429 (undefined); every admitted
 * response carries the IETF RateLimit fields. The principal is also left for the access log.
 */
export const authenticateKey =
  (run: RunEffect<KeyDirectory | SecretHasher | RateLimiter | ServiceSettings>) =>
  async (ctx: Context): Promise<Principal | undefined> => {
    const exit = await run(admitRequest(ctx.get("Authorization") || undefined, ctx.ip));
    if (exit._tag === "Failure") return void sendFailure(ctx, exit.cause);
    const { principal, rate } = exit.value;
    ctx.state.principal = principal;
    const { policy, decision } = rate;
    // Node's setHeader, not Koa's ctx.set: the same headers without Koa's per-call entry arrays.
    ctx.res.setHeader("RateLimit-Policy", `"per-key";q=${policy.burst};w=${Math.round((policy.burst * 60) / policy.perMinute)}`);
    ctx.res.setHeader("RateLimit", `"per-key";r=${decision.remaining};t=${decision.resetSeconds}`);
    if (!decision.allowed) return void sendError(ctx, errorResponseOf(new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds })));
    return principal;
  };
