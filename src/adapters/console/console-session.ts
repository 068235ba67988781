import type { Context, Middleware } from "koa";
import { type HolderSession, resolveSession, resolveSessionForChange } from "../../application/access/holder-access.ts";
import { type ConsoleView, consoleView } from "../../application/account/console-view.ts";
import { messagePage } from "./console-layout.ts";
import { type Execute, redirect, send, serverFault } from "./console-responses.ts";
import { clearCookie, readCookie, SESSION_COOKIE } from "./cookies.ts";
import { FormRefused, readForm } from "./form-body.ts";

type Form = ReadonlyMap<string, string>;
type Handler<A> = (ctx: Context, value: A) => Promise<void> | void;

export const sessionCookie = (ctx: Context): string | undefined => readCookie(ctx.get("Cookie"), SESSION_COOKIE);

/**
 * The console's session and CSRF checks, as middleware that hands the route what it checked as a
 * typed value: a signed-in page gets the session and the account's view (or the browser is sent to
 * sign in); a form gets its fields once it came from our own origin (Fetch metadata and Origin,
 * where the browser sends them); a signed-in form also needs the session's CSRF token beside the
 * SameSite=Strict session cookie. Anything refused is answered here, and changes nothing.
 */
export const sessionGuards = (execute: Execute, origin: string) => {
  const viewOf = async (ctx: Context, session: HolderSession): Promise<ConsoleView | undefined> => {
    const result = await execute(ctx, consoleView(session.accountId));
    if (result === undefined) return undefined;
    if (result.ok) return result.value;
    serverFault(ctx, result.failure);
    return undefined;
  };

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

  const readPost = async (ctx: Context, limit?: number): Promise<Form | undefined> => {
    if (!fromOurOrigin(ctx)) return void refuseCrossSite(ctx);
    try {
      return await readForm(ctx, limit);
    } catch (error) {
      if (!(error instanceof FormRefused)) throw error;
      return void send(ctx, error.status, messagePage("Request refused", "The form could not be read."));
    }
  };

  const signedIn =
    (handler: Handler<{ readonly session: HolderSession; readonly view: ConsoleView }>): Middleware =>
    async (ctx) => {
      const result = await execute(ctx, resolveSession(sessionCookie(ctx)));
      if (result === undefined) return;
      if (!result.ok) {
        ctx.append("Set-Cookie", clearCookie(SESSION_COOKIE));
        return redirect(ctx, "/console/sign-in");
      }
      const view = await viewOf(ctx, result.value);
      if (view !== undefined) await handler(ctx, { session: result.value, view });
    };

  const form =
    (handler: Handler<Form>): Middleware =>
    async (ctx) => {
      const fields = await readPost(ctx);
      if (fields !== undefined) await handler(ctx, fields);
    };

  const signedInForm =
    (handler: Handler<{ readonly session: HolderSession; readonly form: Form }>, limit?: number): Middleware =>
    async (ctx) => {
      const fields = await readPost(ctx, limit);
      if (fields === undefined) return;
      const result = await execute(ctx, resolveSessionForChange(sessionCookie(ctx), fields.get("csrf") ?? ""));
      if (result === undefined) return;
      if (!result.ok) return refuseCrossSite(ctx);
      await handler(ctx, { session: result.value, form: fields });
    };

  return { viewOf, signedIn, form, signedInForm };
};
