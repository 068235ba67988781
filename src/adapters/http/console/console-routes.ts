import Router from "@koa/router";
import { Cause, type Effect, Exit } from "effect";
import type { Context, Middleware } from "koa";
import { createKey, deleteKey } from "../../../application/accounts.ts";
import { consoleView } from "../../../application/console-view.ts";
import {
  acceptInvitation,
  checkInvitation,
  consoleActor,
  type HolderSession,
  PASSWORD_MIN_LENGTH,
  resolveSession,
  resolveSessionForChange,
  signIn,
  signOut,
  type StartedSession,
} from "../../../application/holder-access.ts";
import { KEY_ID_PATTERN } from "../../../domain/api-key.ts";
import type { DependencyUnavailable } from "../../../ports/errors.ts";
import type { PasswordHasher } from "../../../ports/password-hasher.ts";
import type { AppServices } from "../app-services.ts";
import type { RunEffect } from "../effect-runner.ts";
import { ERROR_CATALOG, errorResponseOf, INTERNAL_ERROR } from "../error-response.ts";
import { describeCause } from "../respond.ts";
import { CONSOLE_ASSETS } from "./console-assets.ts";
import { deleteKeyPage, keysPage, messagePage, newKeyPage, overviewPage, requestsPage, setPasswordPage, signInPage } from "./console-pages.ts";
import { clearCookie, NEW_KEY_COOKIE, readCookie, SESSION_COOKIE, setCookie } from "./cookies.ts";
import { FormRefused, readForm } from "./form-body.ts";
import { NEW_KEY_FLASH_SECONDS, openNewKey, sealNewKey } from "./new-key-flash.ts";

export interface ConsoleRoutesOptions {
  readonly run: RunEffect<AppServices | PasswordHasher>;
  /** Forms are accepted only from this origin. */
  readonly publicBaseUrl: string;
  /** Seals the one-time cookie that carries a new key's secret to its page. */
  readonly cookieKey: Buffer;
}

/**
 * The account console (/console): holders sign in, see their plan, quota and usage, and make and
 * delete their own keys through the same use cases as itsctl. Server-rendered HTML; every state
 * change is a POST that must come from our own origin, and, once signed in, carry the session's
 * CSRF token beside the SameSite=Strict session cookie.
 */
const KEY_NAME_MAX_LENGTH = 100;
const KEY_NAME = /^[^\p{Cc}]+$/u;

/** No inline script or style anywhere: the policy needs no hashes. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const consoleHeaders: Middleware = async (ctx, next) => {
  ctx.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  ctx.set("X-Frame-Options", "DENY");
  // Invitation tokens sit in the path: no other site may learn them from a Referer. (Not no-referrer:
  // with it, browsers send "Origin: null" on our own forms.)
  ctx.set("Referrer-Policy", "same-origin");
  await next();
};

type Failure = { readonly _tag: string; readonly code?: string; readonly message?: string; readonly retryAfterSeconds?: number };

export const consoleRoutes = (options: ConsoleRoutesOptions): Router => {
  const { run, cookieKey } = options;
  const origin = new URL(options.publicBaseUrl).origin;
  const router = new Router({ prefix: "/console" });
  router.use(consoleHeaders);

  const send = (ctx: Context, status: number, body: string) => {
    ctx.status = status;
    ctx.type = "text/html; charset=utf-8";
    ctx.body = body;
  };
  const redirect = (ctx: Context, location: string) => {
    ctx.status = 303;
    ctx.set("Location", location);
    ctx.body = "";
  };
  /** A 5xx page; the access log writes its one line, at level error, with the cause. */
  const serverFault = (ctx: Context, cause: unknown) => {
    ctx.state.failure = { code: INTERNAL_ERROR.code, cause: describeCause(cause) };
    send(ctx, INTERNAL_ERROR.status, messagePage("Something went wrong", `Please try again. Reference: ${String(ctx.state.requestId ?? "")}.`));
  };

  /** The use case's value, or its failure (a declared error) for the handler to map; defects become a 500 page. */
  const execute = async <A, E>(
    ctx: Context,
    effect: Effect.Effect<A, E, AppServices | PasswordHasher>,
  ): Promise<{ ok: true; value: A } | { ok: false; failure: Failure } | undefined> => {
    const exit = await run(effect);
    if (Exit.isSuccess(exit)) return { ok: true, value: exit.value };
    const failure = exit.cause.reasons.find(Cause.isFailReason)?.error as Failure | undefined;
    if (failure?._tag === "DependencyUnavailable") {
      // The API's catalog gives the status and Retry-After; the page is the console's own.
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

  const sessionCookie = (ctx: Context) => readCookie(ctx.get("Cookie"), SESSION_COOKIE);

  /** The signed-in holder, or a redirect to sign-in (undefined: the response is already set). */
  const requireSession = async (ctx: Context): Promise<HolderSession | undefined> => {
    const result = await execute(ctx, resolveSession(sessionCookie(ctx)));
    if (result === undefined) return undefined;
    if (result.ok) return result.value;
    ctx.append("Set-Cookie", clearCookie(SESSION_COOKIE));
    redirect(ctx, "/console/sign-in");
    return undefined;
  };

  /** Fetch metadata and Origin, where the browser sends them, must name this site. */
  const fromOurOrigin = (ctx: Context): boolean => {
    const site = ctx.get("Sec-Fetch-Site");
    const from = ctx.get("Origin");
    return (site === "" || site === "same-origin" || site === "none") && (from === "" || from === origin);
  };
  const refuseCrossSite = (ctx: Context) =>
    send(
      ctx,
      403,
      messagePage("Request refused", "This form was not sent from a signed-in console page. Nothing was changed.", {
        href: "/console",
        label: "Back to the console",
      }),
    );

  /** A state-changing form: our origin, a readable body, and (when `withSession`) a live session with its CSRF token. */
  const readPost = async (ctx: Context): Promise<ReadonlyMap<string, string> | undefined> => {
    if (!fromOurOrigin(ctx)) {
      refuseCrossSite(ctx);
      return undefined;
    }
    try {
      return await readForm(ctx);
    } catch (error) {
      if (!(error instanceof FormRefused)) throw error;
      send(ctx, error.status, messagePage("Request refused", "The form could not be read."));
      return undefined;
    }
  };
  const readSignedInPost = async (ctx: Context): Promise<{ session: HolderSession; form: ReadonlyMap<string, string> } | undefined> => {
    const form = await readPost(ctx);
    if (form === undefined) return undefined;
    const result = await execute(ctx, resolveSessionForChange(sessionCookie(ctx), form.get("csrf") ?? ""));
    if (result === undefined) return undefined;
    if (!result.ok) {
      refuseCrossSite(ctx);
      return undefined;
    }
    return { session: result.value, form };
  };

  const startSession = (ctx: Context, session: StartedSession) => {
    const seconds = (new Date(session.expiresAt).getTime() - Date.now()) / 1000;
    ctx.append("Set-Cookie", setCookie(SESSION_COOKIE, session.token, seconds));
    redirect(ctx, "/console");
  };

  const viewOf = async (ctx: Context, session: HolderSession) => {
    const result = await execute(ctx, consoleView(session.accountId));
    if (result === undefined) return undefined;
    if (!result.ok) {
      serverFault(ctx, result.failure);
      return undefined;
    }
    return result.value;
  };

  router.get("/assets/:name", (ctx) => {
    const asset = Object.hasOwn(CONSOLE_ASSETS, ctx.params.name ?? "") ? CONSOLE_ASSETS[ctx.params.name as keyof typeof CONSOLE_ASSETS] : undefined;
    if (asset === undefined) return send(ctx, 404, messagePage("Not found", "No such file."));
    ctx.set("Cache-Control", "public, max-age=31536000, immutable");
    ctx.type = asset.type;
    ctx.body = asset.text;
  });

  router.get("/sign-in", async (ctx) => {
    const result = await execute(ctx, resolveSession(sessionCookie(ctx)));
    if (result === undefined) return;
    if (result.ok) return redirect(ctx, "/console");
    send(ctx, 200, signInPage({}));
  });

  const page429 = (seconds: number) =>
    messagePage("Too many attempts", `Too many attempts with a wrong password. Please wait ${seconds} seconds before you try again.`, {
      href: "/console/sign-in",
      label: "Back to sign-in",
    });

  router.post("/sign-in", async (ctx) => {
    const form = await readPost(ctx);
    if (form === undefined) return;
    const email = (form.get("email") ?? "").trim();
    const previous = sessionCookie(ctx);
    const result = await execute(ctx, signIn(email, form.get("password") ?? "", ctx.ip));
    if (result === undefined) return;
    if (result.ok) {
      // Rotation: whatever session this browser held before is ended; the new one has a new id and secret.
      if (previous !== undefined) {
        const old = await run(resolveSession(previous));
        if (Exit.isSuccess(old)) await run(signOut(old.value));
      }
      return startSession(ctx, result.value);
    }
    if (result.failure._tag === "SignInThrottled") {
      ctx.set("Retry-After", String(result.failure.retryAfterSeconds ?? 60));
      return send(ctx, 429, page429(result.failure.retryAfterSeconds ?? 60));
    }
    send(ctx, 401, signInPage({ email, error: result.failure.message ?? "Wrong email or password." }));
  });

  const invitationGone = (ctx: Context, message: string) =>
    send(ctx, 404, messagePage("Invitation not valid", message, { href: "/console/sign-in", label: "Sign in" }));

  router.get("/invite/:token", async (ctx) => {
    ctx.state.logPath = "/console/invite/…";
    const token = ctx.params.token ?? "";
    const result = await execute(ctx, checkInvitation(token));
    if (result === undefined) return;
    if (!result.ok) return invitationGone(ctx, result.failure.message ?? "");
    send(ctx, 200, setPasswordPage({ token, email: result.value.email, minLength: PASSWORD_MIN_LENGTH }));
  });

  router.post("/invite/:token", async (ctx) => {
    ctx.state.logPath = "/console/invite/…";
    const form = await readPost(ctx);
    if (form === undefined) return;
    const token = ctx.params.token ?? "";
    const result = await execute(ctx, acceptInvitation(token, form.get("password") ?? "", form.get("confirm") ?? ""));
    if (result === undefined) return;
    if (result.ok) return startSession(ctx, result.value);
    if (result.failure._tag !== "PasswordRejected") return invitationGone(ctx, result.failure.message ?? "");
    const invitation = await execute(ctx, checkInvitation(token));
    if (invitation === undefined) return;
    if (!invitation.ok) return invitationGone(ctx, invitation.failure.message ?? "");
    send(ctx, 422, setPasswordPage({ token, email: invitation.value.email, minLength: PASSWORD_MIN_LENGTH, error: result.failure.message ?? "" }));
  });

  router.post("/sign-out", async (ctx) => {
    const posted = await readSignedInPost(ctx);
    if (posted === undefined) return;
    const result = await execute(ctx, signOut(posted.session));
    if (result === undefined) return;
    ctx.append("Set-Cookie", clearCookie(SESSION_COOKIE));
    redirect(ctx, "/console/sign-in");
  });

  router.get("/", async (ctx) => {
    const session = await requireSession(ctx);
    const view = session && (await viewOf(ctx, session));
    if (session && view) send(ctx, 200, overviewPage(view, session.csrfToken));
  });

  router.get("/requests", async (ctx) => {
    const session = await requireSession(ctx);
    const view = session && (await viewOf(ctx, session));
    if (session && view) send(ctx, 200, requestsPage(view, session.csrfToken));
  });

  router.get("/keys", async (ctx) => {
    const session = await requireSession(ctx);
    const view = session && (await viewOf(ctx, session));
    if (!session || !view) return;
    // The new key's secret is shown on this one response and its cookie cleared: a reload shows it no more.
    const sealed = readCookie(ctx.get("Cookie"), NEW_KEY_COOKIE);
    const opened = sealed === undefined ? undefined : openNewKey(cookieKey, session.sessionId, sealed, new Date());
    if (sealed !== undefined) ctx.append("Set-Cookie", clearCookie(NEW_KEY_COOKIE));
    const created = opened !== undefined && view.keys.some((key) => key.id === opened.keyId) ? opened : undefined;
    send(ctx, 200, keysPage(view, session.csrfToken, created));
  });

  router.get("/keys/new", async (ctx) => {
    const session = await requireSession(ctx);
    const view = session && (await viewOf(ctx, session));
    if (session && view) send(ctx, 200, newKeyPage(view, session.csrfToken, { maxLength: KEY_NAME_MAX_LENGTH }));
  });

  router.post("/keys", async (ctx) => {
    const posted = await readSignedInPost(ctx);
    if (posted === undefined) return;
    const { session, form } = posted;
    const name = (form.get("name") ?? "").trim();
    const retry = async (status: number, error: string) => {
      const view = await viewOf(ctx, session);
      if (view) send(ctx, status, newKeyPage(view, session.csrfToken, { name, error, maxLength: KEY_NAME_MAX_LENGTH }));
    };
    if (name.length === 0 || name.length > KEY_NAME_MAX_LENGTH || !KEY_NAME.test(name)) {
      return retry(422, `Give the key a name of 1 to ${KEY_NAME_MAX_LENGTH} characters.`);
    }
    // The use case itsctl runs: the key cap holds here too, and the key is the same kind of thing.
    const result = await execute(ctx, createKey(session.accountId, name, consoleActor(session.accountId, session.sessionId)));
    if (result === undefined) return;
    if (!result.ok) {
      if (result.failure.code === "KEY_LIMIT_REACHED") {
        // The decider's reason ("an account may hold at most N keys"), as a sentence, and what to do.
        const reason = result.failure.message ?? "this account holds as many keys as it may";
        return retry(ERROR_CATALOG.CommandRejected.status, `${reason.charAt(0).toUpperCase()}${reason.slice(1)}. Delete a key before you make another.`);
      }
      return serverFault(ctx, result.failure);
    }
    const sealed = sealNewKey(cookieKey, session.sessionId, { keyId: result.value.id, name: result.value.name, key: result.value.key }, new Date());
    ctx.append("Set-Cookie", setCookie(NEW_KEY_COOKIE, sealed, NEW_KEY_FLASH_SECONDS));
    redirect(ctx, "/console/keys");
  });

  const keyOf = (ctx: Context, view: NonNullable<Awaited<ReturnType<typeof viewOf>>>) => {
    const keyId = ctx.params.keyId ?? "";
    return KEY_ID_PATTERN.test(keyId) ? view.keys.find((key) => key.id === keyId) : undefined;
  };
  const keyGone = (ctx: Context) =>
    send(ctx, 404, messagePage("No such key", "This key does not exist or was deleted already.", { href: "/console/keys", label: "Back to API keys" }));

  router.get("/keys/:keyId/delete", async (ctx) => {
    const session = await requireSession(ctx);
    const view = session && (await viewOf(ctx, session));
    if (!session || !view) return;
    const key = keyOf(ctx, view);
    if (key === undefined) return keyGone(ctx);
    send(ctx, 200, deleteKeyPage(view, session.csrfToken, key));
  });

  router.post("/keys/:keyId/delete", async (ctx) => {
    const posted = await readSignedInPost(ctx);
    if (posted === undefined) return;
    const keyId = ctx.params.keyId ?? "";
    if (!KEY_ID_PATTERN.test(keyId)) return keyGone(ctx);
    const result = await execute(ctx, deleteKey(posted.session.accountId, keyId, consoleActor(posted.session.accountId, posted.session.sessionId)));
    if (result === undefined) return;
    if (!result.ok) return result.failure.code === "KEY_NOT_FOUND" ? keyGone(ctx) : serverFault(ctx, result.failure);
    redirect(ctx, "/console/keys");
  });

  return router;
};
