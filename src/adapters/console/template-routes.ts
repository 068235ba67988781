import type Router from "@koa/router";
import { Effect } from "effect";
import type { Context } from "koa";
import type { HolderSession } from "../../application/access/holder-access.ts";
import { previewOfBody, previewOfTemplate } from "../../application/account-templates/account-template-preview.ts";
import { createTemplate, deleteTemplate, listAccountTemplates, type TemplateOwner } from "../../application/account-templates/account-templates.ts";
import { InvalidRequest } from "../../application/errors.ts";
import { DESIGN_LIMITS } from "../../domain/account-templates/account-template-design.ts";
import type { RenderedImage } from "../../ports/engines/image.ts";
import { decodeBody } from "../http/bodies/request-body.ts";
import { type ApiError, errorResponseOf } from "../http/errors/error-catalog.ts";
import { TemplateBody } from "../http/groups/account-templates/account-template-schemas.ts";
import { messagePage } from "./console-layout.ts";
import { type Execute, type Failure, redirect, send, serverFault } from "./console-responses.ts";
import type { sessionGuards } from "./console-session.ts";
import { SAMPLE_DESIGN, type TemplateFormState, templatesPage } from "./template-pages.ts";

type Guards = ReturnType<typeof sessionGuards>;

/**
 * A template's form carries its embedded images: all of them together (base64, some of it escaped
 * in the form's encoding, about 6 % more) and the layers' text, escaped too. Every other console form keeps 8 KiB.
 */
export const TEMPLATE_FORM_LIMIT = Math.ceil(DESIGN_LIMITS.maxEmbeddedImagesChars * 1.1) + 256 * 1024;

/** The textarea's JSON, decoded by the schema of POST /api/templates: the same details, word for word. */
const bodyOf = (json: string) =>
  Effect.suspend(() => {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return Effect.fail(new InvalidRequest({ message: "The template is not valid JSON.", details: [] }));
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return Effect.fail(new InvalidRequest({ message: "The template must be a JSON object.", details: [] }));
    }
    return decodeBody(TemplateBody, value);
  });

const ownerOf = (session: HolderSession, plan: TemplateOwner["account"]["plan"]): TemplateOwner => ({
  account: { accountId: session.accountId, plan },
  sessionId: session.sessionId,
});

const image = (ctx: Context, rendered: RenderedImage) => {
  ctx.status = 200;
  ctx.type = rendered.contentType;
  // A preview is of the design as it was sent or kept a moment ago: never reused.
  ctx.set("Cache-Control", "no-store");
  ctx.body = Buffer.from(rendered.bytes);
};

/**
 * The Templates page under /console/templates: the account's own templates, made from the JSON
 * POST /api/templates takes and deleted by the same use cases as the API's, each change recorded as
 * the holder's (console actor); previews drawn by the service (application/account-templates/account-template-preview.ts).
 * Refusals are the API's own (errors/error-catalog.ts): their message and details are shown in the form.
 */
export const templateRoutes = (router: Router, execute: Execute, { signedIn, signedInForm, viewOf }: Guards): void => {
  /** The page, with the form as the holder left it and the refusal's words, or the service's 5xx page. */
  const showPage = async (ctx: Context, session: HolderSession, status: number, form: TemplateFormState) => {
    const view = await viewOf(ctx, session);
    if (view === undefined) return;
    const listed = await execute(ctx, listAccountTemplates(ownerOf(session, view.plan)));
    if (listed === undefined) return;
    if (!listed.ok) return serverFault(ctx, listed.failure);
    send(ctx, status, templatesPage(view, session.csrfToken, listed.value, form));
  };
  const refused = (ctx: Context, session: HolderSession, json: string, failure: Failure) => {
    const response = errorResponseOf(failure as ApiError);
    if (response.status >= 500) {
      // The engine's queue full or its deadline passed: the API's status and Retry-After, on a page of the console's own.
      for (const [name, value] of Object.entries(response.headers ?? {})) ctx.set(name, value);
      ctx.state.failure = { code: response.code, cause: failure.message ?? failure._tag };
      return send(ctx, response.status, messagePage("Temporarily unavailable", response.message, { href: "/console/templates", label: "Back to templates" }));
    }
    return showPage(ctx, session, response.status, { json, error: response.message, ...(response.details ? { details: response.details } : {}) });
  };

  router.get(
    "/templates",
    signedIn((ctx, { session }) => showPage(ctx, session, 200, { json: SAMPLE_DESIGN })),
  );

  router.post(
    "/templates",
    signedInForm(async (ctx, { session, form }) => {
      const json = form.get("design") ?? "";
      const view = await viewOf(ctx, session);
      if (view === undefined) return;
      const result = await execute(
        ctx,
        Effect.flatMap(bodyOf(json), (body) => createTemplate(ownerOf(session, view.plan), body)),
      );
      if (result === undefined) return;
      if (!result.ok) return refused(ctx, session, json, result.failure);
      redirect(ctx, "/console/templates");
    }, TEMPLATE_FORM_LIMIT),
  );

  router.post(
    "/templates/preview",
    signedInForm(async (ctx, { session, form }) => {
      const json = form.get("design") ?? "";
      const result = await execute(
        ctx,
        Effect.flatMap(bodyOf(json), (body) => previewOfBody(session.accountId, body)),
      );
      if (result === undefined) return;
      if (!result.ok) return refused(ctx, session, json, result.failure);
      image(ctx, result.value);
    }, TEMPLATE_FORM_LIMIT),
  );

  router.get(
    "/templates/:templateId/preview",
    signedIn(async (ctx, { session }) => {
      const result = await execute(ctx, previewOfTemplate(session.accountId, ctx.params.templateId ?? ""));
      if (result === undefined) return;
      if (!result.ok) return result.failure._tag === "NotFound" ? templateGone(ctx) : serverFault(ctx, result.failure);
      image(ctx, result.value);
    }),
  );

  router.post(
    "/templates/:templateId/delete",
    signedInForm(async (ctx, { session }) => {
      const view = await viewOf(ctx, session);
      if (view === undefined) return;
      const result = await execute(ctx, deleteTemplate(ownerOf(session, view.plan), ctx.params.templateId ?? ""));
      if (result === undefined) return;
      if (!result.ok) return result.failure._tag === "NotFound" ? templateGone(ctx) : serverFault(ctx, result.failure);
      redirect(ctx, "/console/templates");
    }),
  );
};

const templateGone = (ctx: Context) =>
  send(
    ctx,
    404,
    messagePage("No such template", "This template does not exist or was deleted already.", { href: "/console/templates", label: "Back to templates" }),
  );
