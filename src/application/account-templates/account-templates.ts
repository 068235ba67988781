import { Effect } from "effect";
import {
  type AccountTemplateCommand,
  type AccountTemplatesState,
  accountTemplatesStream,
  findAccountTemplate,
  type TemplateVersion,
} from "../../domain/account-templates/account-template.ts";
import {
  type Design,
  designIssues,
  type DesignLayout,
  TEMPLATE_NAME_PATTERN,
  TEMPLATE_NAME_RULE,
} from "../../domain/account-templates/account-template-design.ts";
import { unavailableFontIssues } from "../../domain/account-templates/unavailable-fonts.ts";
import { echo } from "../../domain/echo.ts";
import { type PlanId, PLANS } from "../../domain/plan.ts";
import { Clock } from "../../ports/clock.ts";
import { EngineTenant } from "../../ports/engines/engine-tenant.ts";
import { ImageEngine } from "../../ports/engines/image-engine.ts";
import { TemplateFonts } from "../../ports/engines/template-fonts.ts";
import { Ids } from "../../ports/ids.ts";
import { accountActing } from "../access/actor.ts";
import type { CommandRejected } from "../errors.ts";
import { InvalidRequest, NotFound, TemplateLimitReached } from "../errors.ts";
import { handleCommand, loadState } from "../event-sourcing/command-handler.ts";
import { accountTemplatesStreamType } from "../event-sourcing/events/account-template-events.ts";
import { embeddedImages } from "./account-template-images.ts";

/**
 * The templates of an account's own (issue 27): made, read, revised and deleted by its keys only;
 * another account's template is not found (404), never forbidden, so ids reveal nothing. A body
 * is checked whole (every broken rule in `details`), its images decoded, and drawn once before it
 * is kept: what is kept renders.
 */
export interface TemplateBody extends Design {
  readonly name: string;
}

/**
 * Who acts on an account's templates: one of its keys (the API's Principal), or its holder signed in
 * to the console (the session's public id); each change records which.
 */
export type TemplateOwner = { readonly account: { readonly accountId: string; readonly plan: PlanId } } & (
  { readonly key: { readonly keyId: string } } | { readonly sessionId: string }
);

/** Reading needs only the account. */
type AccountOf = { readonly account: { readonly accountId: string } };

const notFound = (idOrName: string) => new NotFound({ message: `No template ${echo(idOrName)} on this account.` });

export const checkedDesign = (body: TemplateBody) =>
  Effect.gen(function* () {
    const design: Design = { canvas: body.canvas, layers: body.layers, ...(body.variants ? { variants: body.variants } : {}) };
    const available = new Set((yield* TemplateFonts).available.map(({ family }) => family));
    const issues = [
      ...(TEMPLATE_NAME_PATTERN.test(body.name) ? [] : [{ path: "name", message: TEMPLATE_NAME_RULE }]),
      ...designIssues(design),
      ...unavailableFontIssues(design, available),
    ];
    if (issues.length > 0) {
      return yield* new InvalidRequest({
        message: `The template breaks ${issues.length === 1 ? "a rule" : `${issues.length} rules`}; see details.`,
        details: issues,
      });
    }
    return design;
  });

/** Draws one layout with its own text and images; `prefix` is its place in the body, which a refused image's field names. */
const drawnLayout = (layout: DesignLayout, prefix = "") =>
  Effect.gen(function* () {
    const images = yield* embeddedImages(layout, {}, prefix);
    return yield* (yield* ImageEngine).renderDesign(layout, { images, text: {} });
  });

/**
 * Draws the design with its own text and images (the console's preview draws what it shows this
 * way): its default layout only.
 */
export const drawnWithOwnContent = (accountId: string, design: Design) => drawnLayout(design).pipe(Effect.provideService(EngineTenant, accountId));

/**
 * Draws the design once, each of its layouts, with its own text and images: an image that does not
 * decode is refused now, not at the first call.
 */
const drawnOnce = (accountId: string, design: Design) =>
  Effect.forEach(
    [["", design] as const, ...Object.entries(design.variants ?? {}).map(([name, variant]) => [`variants.${name}.`, variant] as const)],
    ([prefix, layout]) => drawnLayout(layout, prefix),
    { discard: true },
  ).pipe(Effect.provideService(EngineTenant, accountId));

const decided = (owner: TemplateOwner, command: AccountTemplateCommand) =>
  handleCommand(accountTemplatesStreamType, accountTemplatesStream(owner.account.accountId), command, accountActing(owner)).pipe(
    Effect.catchTag("CommandRejected", (rejected): Effect.Effect<never, CommandRejected | NotFound | TemplateLimitReached> => {
      if (rejected.code === "TEMPLATE_NOT_FOUND") return Effect.fail(notFound("templateId" in command ? command.templateId : ""));
      if (rejected.code === "TEMPLATE_LIMIT_REACHED" && command.type === "CreateTemplate" && command.limit !== null) {
        return Effect.fail(new TemplateLimitReached({ plan: owner.account.plan, limit: command.limit }));
      }
      return Effect.fail(rejected);
    }),
  );

const templateOf = (handled: { readonly state: AccountTemplatesState }, templateId: string) => {
  const template = handled.state.templates.get(templateId);
  return template === undefined ? Effect.die(new Error(`template ${templateId} missing after its own command`)) : Effect.succeed(template);
};

export const createTemplate = (owner: TemplateOwner, body: TemplateBody) =>
  Effect.gen(function* () {
    const design = yield* checkedDesign(body);
    yield* drawnOnce(owner.account.accountId, design);
    const templateId = `tpl_${(yield* Ids).uuid().replaceAll("-", "")}`;
    const { accountId, plan } = owner.account;
    const command = {
      type: "CreateTemplate",
      accountId,
      templateId,
      name: body.name,
      design,
      limit: PLANS[plan].accountTemplates,
      now: (yield* Clock).now(),
    } as const;
    return yield* templateOf(yield* decided(owner, command), templateId);
  });

/** A new version of the template `idOrName` names. */
export const reviseTemplate = (owner: TemplateOwner, idOrName: string, body: TemplateBody) =>
  Effect.gen(function* () {
    const { templateId } = yield* getTemplate(owner, idOrName);
    const design = yield* checkedDesign(body);
    yield* drawnOnce(owner.account.accountId, design);
    const handled = yield* decided(owner, { type: "ReviseTemplate", templateId, name: body.name, design, now: (yield* Clock).now() });
    return yield* templateOf(handled, templateId);
  });

export const deleteTemplate = (owner: TemplateOwner, idOrName: string) =>
  Effect.gen(function* () {
    const template = yield* getTemplate(owner, idOrName);
    yield* decided(owner, { type: "DeleteTemplate", templateId: template.templateId, now: (yield* Clock).now() });
    return template;
  });

/** The account's templates, newest version of each, oldest first. */
export const listAccountTemplates = (owner: AccountOf) =>
  Effect.map(loadState(accountTemplatesStreamType, accountTemplatesStream(owner.account.accountId)), ({ state }) => [...state.templates.values()]);

/** One of the account's templates by its id or its name; any other account's is not found. */
export const getTemplate = (owner: AccountOf, idOrName: string) =>
  Effect.flatMap(loadState(accountTemplatesStreamType, accountTemplatesStream(owner.account.accountId)), ({ state }) => {
    const template = findAccountTemplate(state, idOrName);
    return template === undefined ? Effect.fail(notFound(idOrName)) : Effect.succeed<TemplateVersion>(template);
  });
