import type Router from "@koa/router";
import type { Context } from "koa";
import { createKey, deleteKey, rollKey } from "../../application/access/accounts.ts";
import { consoleActor, type HolderSession } from "../../application/access/holder-access.ts";
import type { ConsoleView } from "../../application/account/console-view.ts";
import { KEY_ID_PATTERN } from "../../domain/api-key.ts";
import { ERROR_CATALOG } from "../http/errors/error-catalog.ts";
import { messagePage } from "./console-layout.ts";
import { type Execute, redirect, send, serverFault } from "./console-responses.ts";
import type { sessionGuards } from "./console-session.ts";
import { clearCookie, NEW_KEY_COOKIE, readCookie, setCookie } from "./cookies.ts";
import { deleteKeyPage, keysPage, newKeyPage, rollKeyPage } from "./key-pages.ts";
import { EMPTY_RESTRICTION_FIELDS, graceOf, restrictionFieldsOf, restrictionsOfFields } from "./key-restriction-form.ts";
import { NEW_KEY_FLASH_SECONDS, openNewKey, sealNewKey } from "./new-key-flash.ts";

type Guards = ReturnType<typeof sessionGuards>;

const KEY_NAME_MAX_LENGTH = 100;
const KEY_NAME = /^[^\p{Cc}]+$/u;

const keyGone = (ctx: Context) =>
  send(ctx, 404, messagePage("No such key", "This key does not exist or was deleted already.", { href: "/console/keys", label: "Back to API keys" }));
const keyOf = (ctx: Context, view: ConsoleView) => {
  const keyId = ctx.params.keyId ?? "";
  return KEY_ID_PATTERN.test(keyId) ? view.keys.find((key) => key.id === keyId) : undefined;
};
/** A decider's reason ("an account may hold at most N keys") as a sentence. */
const sentence = (reason: string) => `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;

/** The new key's secret travels to the list page in a one-minute sealed cookie, shown once there. */
const showOnce = (ctx: Context, cookieKey: Buffer, session: HolderSession, key: { readonly id: string; readonly name: string; readonly key: string }) => {
  const sealed = sealNewKey(cookieKey, session.sessionId, { keyId: key.id, name: key.name, key: key.key }, new Date());
  ctx.append("Set-Cookie", setCookie(NEW_KEY_COOKIE, sealed, NEW_KEY_FLASH_SECONDS));
  redirect(ctx, "/console/keys");
};

/**
 * The console's API keys: list, make (with restrictions), roll and delete, through the same use
 * cases as itsctl, so the key cap and every restriction rule hold here too. A refused form comes back
 * filled in as typed, with the reason and the status the API would give (409 for the cap, 422 else).
 */
export const keyRoutes = (router: Router, execute: Execute, { signedIn, signedInForm, viewOf }: Guards, cookieKey: Buffer) => {
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
    signedIn((ctx, { session, view }) =>
      send(ctx, 200, newKeyPage(view, session.csrfToken, { maxLength: KEY_NAME_MAX_LENGTH, restrictions: EMPTY_RESTRICTION_FIELDS })),
    ),
  );

  router.post(
    "/keys",
    signedInForm(async (ctx, { session, form: fields }) => {
      const name = (fields.get("name") ?? "").trim();
      const restrictions = restrictionFieldsOf(fields);
      const retry = async (status: number, error: string) => {
        const view = await viewOf(ctx, session);
        if (view) send(ctx, status, newKeyPage(view, session.csrfToken, { name, restrictions, error, maxLength: KEY_NAME_MAX_LENGTH }));
      };
      if (name.length === 0 || name.length > KEY_NAME_MAX_LENGTH || !KEY_NAME.test(name)) {
        return retry(422, `Give the key a name of 1 to ${KEY_NAME_MAX_LENGTH} characters.`);
      }
      const requested = restrictionsOfFields(restrictions, new Date());
      if ("error" in requested) return retry(422, requested.error);
      const result = await execute(ctx, createKey(session.accountId, name, consoleActor(session.accountId, session.sessionId), requested.restrictions));
      if (result === undefined) return;
      if (!result.ok) {
        const reason = result.failure.message ?? "this account holds as many keys as it may";
        if (result.failure.code === "KEY_LIMIT_REACHED")
          return retry(ERROR_CATALOG.CommandRejected.status, `${sentence(reason)} Delete a key before you make another.`);
        if (result.failure.code === "INVALID_RESTRICTIONS") return retry(422, sentence(reason));
        return serverFault(ctx, result.failure);
      }
      showOnce(ctx, cookieKey, session, result.value);
    }),
  );

  router.get(
    "/keys/:keyId/roll",
    signedIn((ctx, { session, view }) => {
      const key = keyOf(ctx, view);
      if (key === undefined) return keyGone(ctx);
      send(ctx, 200, rollKeyPage(view, session.csrfToken, key));
    }),
  );

  router.post(
    "/keys/:keyId/roll",
    signedInForm(async (ctx, { session, form: fields }) => {
      const keyId = ctx.params.keyId ?? "";
      if (!KEY_ID_PATTERN.test(keyId)) return keyGone(ctx);
      const grace = graceOf(fields.get("grace"));
      if (grace === undefined) {
        const view = await viewOf(ctx, session);
        const key = view && keyOf(ctx, view);
        if (view === undefined || key === undefined) return view && keyGone(ctx);
        return send(
          ctx,
          422,
          rollKeyPage(view, session.csrfToken, key, { grace: fields.get("grace") ?? "", error: "The grace period is a duration such as 24h, 30m or 7d." }),
        );
      }
      const result = await execute(ctx, rollKey(session.accountId, keyId, grace, consoleActor(session.accountId, session.sessionId)));
      if (result === undefined) return;
      if (!result.ok) return result.failure.code === "KEY_NOT_FOUND" ? keyGone(ctx) : serverFault(ctx, result.failure);
      showOnce(ctx, cookieKey, session, result.value);
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
};
