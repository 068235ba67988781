import Router from "@koa/router";
import { Exit } from "effect";
import type { Context } from "koa";
import {
  acceptInvitation,
  checkInvitation,
  PASSWORD_MIN_LENGTH,
  resolveSession,
  signIn,
  signOut,
  type StartedSession,
} from "../../application/access/holder-access.ts";
import { billRoutes } from "./bill-routes.ts";
import { CONSOLE_ASSETS } from "./console-assets.ts";
import { messagePage, setPasswordPage, signInPage } from "./console-layout.ts";
import { consoleHeaders, type ConsoleRun, executor, redirect, send } from "./console-responses.ts";
import { sessionCookie, sessionGuards } from "./console-session.ts";
import { clearCookie, SESSION_COOKIE, setCookie } from "./cookies.ts";
import { keyRoutes } from "./key-routes.ts";
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

const page429 = (seconds: number) =>
  messagePage("Too many attempts", `Too many attempts with a wrong password. Please wait ${seconds} seconds before you try again.`, {
    href: "/console/sign-in",
    label: "Back to sign-in",
  });
const invitationGone = (ctx: Context, message: string) =>
  send(ctx, 404, messagePage("Invitation not valid", message, { href: "/console/sign-in", label: "Sign in" }));

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
  const { signedIn, form, signedInForm } = guards;
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
  keyRoutes(router, execute, guards, cookieKey);

  return router;
};
