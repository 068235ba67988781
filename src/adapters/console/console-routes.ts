import Router from "@koa/router";
import { Exit } from "effect";
import type { Context } from "koa";
import { createKey, deleteKey } from "../../application/access/accounts.ts";
import {
  acceptInvitation,
  checkInvitation,
  consoleActor,
  PASSWORD_MIN_LENGTH,
  resolveSession,
  signIn,
  signOut,
  type StartedSession,
} from "../../application/access/holder-access.ts";
import type { ConsoleView } from "../../application/account/console-view.ts";
import { KEY_ID_PATTERN } from "../../domain/api-key.ts";
import { ERROR_CATALOG } from "../http/errors/error-catalog.ts";
import { billRoutes } from "./bill-routes.ts";
import { CONSOLE_ASSETS } from "./console-assets.ts";
import { messagePage, setPasswordPage, signInPage } from "./console-layout.ts";
import { consoleHeaders, type ConsoleRun, executor, redirect, send, serverFault } from "./console-responses.ts";
import { sessionCookie, sessionGuards } from "./console-session.ts";
import { clearCookie, NEW_KEY_COOKIE, readCookie, SESSION_COOKIE, setCookie } from "./cookies.ts";
import { deleteKeyPage, keysPage, newKeyPage } from "./key-pages.ts";
import { NEW_KEY_FLASH_SECONDS, openNewKey, sealNewKey } from "./new-key-flash.ts";
import { overviewPage, requestsPage } from "./overview-pages.ts";
import { templateRoutes } from "./template-routes.ts";
import { webhookRoutes } from "./webhook-routes.ts";

export interface ConsoleRoutesOptions {
  readonly run: ConsoleRun;
  /** Forms are accepted only from this origin. */
  readonly publicBaseUrl: string;
  /** Seals the one-time cookie that carries a new key's secret to its page. */
  readonly cookieKey: Buffer;
}

const KEY_NAME_MAX_LENGTH = 100;
const KEY_NAME = /^[^\p{Cc}]+$/u;

const page429 = (seconds: number) =>
  messagePage("Too many attempts", `Too many attempts with a wrong password. Please wait ${seconds} seconds before you try again.`, {
    href: "/console/sign-in",
    label: "Back to sign-in",
  });
const invitationGone = (ctx: Context, message: string) =>
  send(ctx, 404, messagePage("Invitation not valid", message, { href: "/console/sign-in", label: "Sign in" }));
const keyGone = (ctx: Context) =>
  send(ctx, 404, messagePage("No such key", "This key does not exist or was deleted already.", { href: "/console/keys", label: "Back to API keys" }));
const keyOf = (ctx: Context, view: ConsoleView) => {
  const keyId = ctx.params.keyId ?? "";
  return KEY_ID_PATTERN.test(keyId) ? view.keys.find((key) => key.id === keyId) : undefined;
};

/**
 * The account console (/console): holders sign in, see their plan, quota, usage and signed bill, and make
 * and delete their own keys through the same use cases as itsctl. Server-rendered HTML; every state
 * change is a POST that must come from our own origin, and, once signed in, carry the session's
 * CSRF token beside the SameSite=Strict session cookie (console-session.ts checks both).
 */
export const consoleRoutes = (options: ConsoleRoutesOptions): Router => {
  const { run, cookieKey } = options;
  const execute = executor(run);
  const guards = sessionGuards(execute, new URL(options.publicBaseUrl).origin);
  const { viewOf, signedIn, form, signedInForm } = guards;
  const router = new Router({ prefix: "/console" });
  router.use(consoleHeaders);

  const startSession = (ctx: Context, session: StartedSession) => {
    const seconds = (new Date(session.expiresAt).getTime() - Date.now()) / 1000;
    ctx.append("Set-Cookie", setCookie(SESSION_COOKIE, session.token, seconds));
    redirect(ctx, "/console");
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

  router.post(
    "/sign-in",
    form(async (ctx, fields) => {
      const email = (fields.get("email") ?? "").trim();
      const previous = sessionCookie(ctx);
      const result = await execute(ctx, signIn(email, fields.get("password") ?? "", ctx.ip));
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
    }),
  );

  router.get("/invite/:token", async (ctx) => {
    ctx.state.logPath = "/console/invite/…";
    const token = ctx.params.token ?? "";
    const result = await execute(ctx, checkInvitation(token));
    if (result === undefined) return;
    if (!result.ok) return invitationGone(ctx, result.failure.message ?? "");
    send(ctx, 200, setPasswordPage({ token, email: result.value.email, minLength: PASSWORD_MIN_LENGTH }));
  });

  router.post(
    "/invite/:token",
    async (ctx, next) => {
      ctx.state.logPath = "/console/invite/…";
      await next();
    },
    form(async (ctx, fields) => {
      const token = ctx.params.token ?? "";
      const result = await execute(ctx, acceptInvitation(token, fields.get("password") ?? "", fields.get("confirm") ?? ""));
      if (result === undefined) return;
      if (result.ok) return startSession(ctx, result.value);
      if (result.failure._tag !== "PasswordRejected") return invitationGone(ctx, result.failure.message ?? "");
      const invitation = await execute(ctx, checkInvitation(token));
      if (invitation === undefined) return;
      if (!invitation.ok) return invitationGone(ctx, invitation.failure.message ?? "");
      send(ctx, 422, setPasswordPage({ token, email: invitation.value.email, minLength: PASSWORD_MIN_LENGTH, error: result.failure.message ?? "" }));
    }),
  );

  router.post(
    "/sign-out",
    signedInForm(async (ctx, { session }) => {
      const result = await execute(ctx, signOut(session));
      if (result === undefined) return;
      ctx.append("Set-Cookie", clearCookie(SESSION_COOKIE));
      redirect(ctx, "/console/sign-in");
    }),
  );

  router.get(
    "/",
    signedIn((ctx, { session, view }) => send(ctx, 200, overviewPage(view, session.csrfToken))),
  );
  router.get(
    "/requests",
    signedIn((ctx, { session, view }) => send(ctx, 200, requestsPage(view, session.csrfToken))),
  );
  billRoutes(router, execute, signedIn);
  templateRoutes(router, execute, guards);
  webhookRoutes(router, execute, guards);
  router.get(
    "/keys",
    signedIn((ctx, { session, view }) => {
      // The new key's secret is shown on this one response and its cookie cleared: a reload shows it no more.
      const sealed = readCookie(ctx.get("Cookie"), NEW_KEY_COOKIE);
      const opened = sealed === undefined ? undefined : openNewKey(cookieKey, session.sessionId, sealed, new Date());
      if (sealed !== undefined) ctx.append("Set-Cookie", clearCookie(NEW_KEY_COOKIE));
      const created = opened !== undefined && view.keys.some((key) => key.id === opened.keyId) ? opened : undefined;
      send(ctx, 200, keysPage(view, session.csrfToken, created));
    }),
  );
  router.get(
    "/keys/new",
    signedIn((ctx, { session, view }) => send(ctx, 200, newKeyPage(view, session.csrfToken, { maxLength: KEY_NAME_MAX_LENGTH }))),
  );

  router.post(
    "/keys",
    signedInForm(async (ctx, { session, form: fields }) => {
      const name = (fields.get("name") ?? "").trim();
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
    }),
  );

  router.get(
    "/keys/:keyId/delete",
    signedIn((ctx, { session, view }) => {
      const key = keyOf(ctx, view);
      if (key === undefined) return keyGone(ctx);
      send(ctx, 200, deleteKeyPage(view, session.csrfToken, key));
    }),
  );

  router.post(
    "/keys/:keyId/delete",
    signedInForm(async (ctx, { session }) => {
      const keyId = ctx.params.keyId ?? "";
      if (!KEY_ID_PATTERN.test(keyId)) return keyGone(ctx);
      const result = await execute(ctx, deleteKey(session.accountId, keyId, consoleActor(session.accountId, session.sessionId)));
      if (result === undefined) return;
      if (!result.ok) return result.failure.code === "KEY_NOT_FOUND" ? keyGone(ctx) : serverFault(ctx, result.failure);
      redirect(ctx, "/console/keys");
    }),
  );

  return router;
};
