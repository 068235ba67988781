import { Effect } from "effect";
import type { Context } from "koa";
import { admitRequest, type Principal } from "../../../application/access/authenticate.ts";
import type { KeyDirectory } from "../../../application/access/key-directory.ts";
import { RateLimited } from "../../../application/errors.ts";
import type { ServiceSettings } from "../../../application/settings.ts";
import type { KeyScope } from "../../../domain/key-restrictions.ts";
import type { AddressRanges } from "../../../ports/address-ranges.ts";
import type { Clock } from "../../../ports/clock.ts";
import type { RateLimiter } from "../../../ports/rate-limiter.ts";
import type { SecretHasher } from "../../../ports/secret-hasher.ts";
import type { RunEffect } from "../api/effect-runner.ts";
import { sendFailure } from "../api/respond.ts";

/**
 * A keyed request's admission: its principal, or 401/429. Every admitted response carries the
 * IETF RateLimit fields, set here; the principal is also left for the access log. An effect, so
 * that a route without a body runs it and its use case as one (mount.ts).
 */
export const admission = (ctx: Context, scope?: KeyScope) =>
  Effect.flatMap(admitRequest(ctx.get("Authorization") || undefined, ctx.ip, scope), ({ principal, rate: { policy, decision } }) => {
    ctx.state.principal = principal;
    // Node's setHeader, not Koa's ctx.set: the same headers without Koa's per-call entry arrays.
    ctx.res.setHeader("RateLimit-Policy", `"per-key";q=${policy.burst};w=${Math.round((policy.burst * 60) / policy.perMinute)}`);
    ctx.res.setHeader("RateLimit", `"per-key";r=${decision.remaining};t=${decision.resetSeconds}`);
    return decision.allowed ? Effect.succeed(principal) : Effect.fail(new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds }));
  });

/** Admits a keyed request before its body is read, giving its principal, or answers 401/403/429 (undefined). */
export const authenticateKey =
  (run: RunEffect<KeyDirectory | SecretHasher | RateLimiter | ServiceSettings | AddressRanges | Clock>, scope?: KeyScope) =>
  async (ctx: Context): Promise<Principal | undefined> => {
    const exit = await run(admission(ctx, scope));
    if (exit._tag === "Failure") return void sendFailure(ctx, exit.cause);
    return exit.value;
  };
