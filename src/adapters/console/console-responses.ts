import { Cause, type Effect, Exit } from "effect";
import type { Context, Middleware } from "koa";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { PasswordHasher } from "../../ports/password-hasher.ts";
import type { AppServices } from "../http/api/app-services.ts";
import type { RunEffect } from "../http/api/effect-runner.ts";
import { describeCause } from "../http/api/respond.ts";
import { errorResponseOf, INTERNAL_ERROR } from "../http/errors/error-catalog.ts";
import { messagePage } from "./console-layout.ts";

/** The console's use cases run with the API's services and the holders' password hasher. */
export type ConsoleRun = RunEffect<AppServices | PasswordHasher>;

/** A use case's declared failure, as the console's handlers tell them apart. */
export type Failure = { readonly _tag: string; readonly code?: string; readonly message?: string; readonly retryAfterSeconds?: number };

/**
 * No inline script or style anywhere: the policy needs no hashes. Images are our own, or blob: for
 * the template preview console.js fetches (a POST, so no img src can name it); connect-src 'self' for that fetch.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const consoleHeaders: Middleware = async (ctx, next) => {
  ctx.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  ctx.set("X-Frame-Options", "DENY");
  // Invitation tokens sit in the path: no other site may learn them from a Referer. (Not no-referrer:
  // with it, browsers send "Origin: null" on our own forms.)
  ctx.set("Referrer-Policy", "same-origin");
  await next();
};

export const send = (ctx: Context, status: number, body: string): void => {
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.body = body;
};

export const redirect = (ctx: Context, location: string): void => {
  ctx.status = 303;
  ctx.set("Location", location);
  ctx.body = "";
};

/** A 5xx page; the access log writes its one line, at level error, with the cause. */
export const serverFault = (ctx: Context, cause: unknown): void => {
  ctx.state.failure = { code: INTERNAL_ERROR.code, cause: describeCause(cause) };
  send(ctx, INTERNAL_ERROR.status, messagePage("Something went wrong", `Please try again. Reference: ${String(ctx.state.requestId ?? "")}.`));
};

export type Executed<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly failure: Failure };

/**
 * Runs a use case: its value, or its failure (a declared error) for the handler to map; a store out
 * of reach gets the API's status and Retry-After on the console's own page, and defects a 500 page
 * (undefined: the response is already set).
 */
export const executor =
  (run: ConsoleRun) =>
  async <A, E>(ctx: Context, effect: Effect.Effect<A, E, AppServices | PasswordHasher>): Promise<Executed<A> | undefined> => {
    const exit = await run(effect);
    if (Exit.isSuccess(exit)) return { ok: true, value: exit.value };
    const failure = exit.cause.reasons.find(Cause.isFailReason)?.error as Failure | undefined;
    if (failure?._tag === "DependencyUnavailable") {
      const response = errorResponseOf(failure as DependencyUnavailable);
      for (const [name, value] of Object.entries(response.headers ?? {})) ctx.set(name, value);
      ctx.state.failure = { code: response.code, cause: describeCause(exit.cause) };
      send(ctx, response.status, messagePage("Temporarily unavailable", "The service cannot reach one of its stores right now. Please try again in a moment."));
      return undefined;
    }
    if (failure === undefined) {
      serverFault(ctx, exit.cause);
      return undefined;
    }
    return { ok: false, failure };
  };

export type Execute = ReturnType<typeof executor>;
