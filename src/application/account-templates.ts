import { Effect } from "effect";
import {
  type AccountTemplateCommand,
  type AccountTemplatesState,
  accountTemplatesStream,
  findAccountTemplate,
  type TemplateVersion,
} from "../domain/account-template.ts";
import { echo } from "../domain/echo.ts";
import { PLANS } from "../domain/plan.ts";
import { type Design, designIssues, TEMPLATE_NAME_PATTERN, TEMPLATE_NAME_RULE } from "../domain/template-design.ts";
import { Clock } from "../ports/clock.ts";
import { EngineTenant } from "../ports/engine-tenant.ts";
import { Ids } from "../ports/ids.ts";
import { ImageEngine } from "../ports/image-engine.ts";
import type { Principal } from "./authenticate.ts";
import { handleCommand, loadState } from "./command-handler.ts";
import { embeddedImages } from "./design-images.ts";
import type { CommandRejected } from "./errors.ts";
import { InvalidRequest, NotFound, TemplateLimitReached } from "./errors.ts";
import { accountTemplatesStreamType } from "./events/account-template-events.ts";

/**
 * The templates of an account's own (issue 27): made, read, revised and deleted by its keys only;
 * another account's template is not found (404), never forbidden, so ids reveal nothing. A body
 * is checked whole (every broken rule in `details`), its images decoded, and drawn once before it
 * is kept: what is kept renders.
 */
export interface TemplateBody extends Design {
  readonly name: string;
}

const notFound = (idOrName: string) => new NotFound({ message: `No template ${echo(idOrName)} on this account.` });

const checked = (body: TemplateBody) =>
  Effect.gen(function* () {
    const design: Design = { canvas: body.canvas, layers: body.layers, ...(body.variants ? { variants: body.variants } : {}) };
    const issues = [...(TEMPLATE_NAME_PATTERN.test(body.name) ? [] : [{ path: "name", message: TEMPLATE_NAME_RULE }]), ...designIssues(design)];
    if (issues.length > 0) {
      return yield* new InvalidRequest({
        message: `The template breaks ${issues.length === 1 ? "a rule" : `${issues.length} rules`}; see details.`,
        details: issues,
      });
    }
    return design;
  });

/**
 * Draws the design once, each of its layouts, with its own text and images: an image that does not
 * decode is refused now, not at the first call.
 */
const drawnOnce = (principal: Principal, design: Design) =>
  Effect.gen(function* () {
    const engine = yield* ImageEngine;
    for (const [prefix, layout] of [
      ["", design] as const,
      ...Object.entries(design.variants ?? {}).map(([name, variant]) => [`variants.${name}.`, variant] as const),
    ]) {
      const images = yield* embeddedImages(layout, {}, prefix);
      yield* engine.renderDesign(layout, { images, text: {} });
    }
  }).pipe(Effect.provideService(EngineTenant, principal.account.accountId));

const actorOf = (principal: Principal) => ({ actor: { kind: "api-key", keyId: principal.key.keyId, accountId: principal.account.accountId } as const });

const decided = (principal: Principal, command: AccountTemplateCommand) =>
  handleCommand(accountTemplatesStreamType, accountTemplatesStream(principal.account.accountId), command, actorOf(principal)).pipe(
    Effect.catchTag("CommandRejected", (rejected): Effect.Effect<never, CommandRejected | NotFound | TemplateLimitReached> => {
      if (rejected.code === "TEMPLATE_NOT_FOUND") return Effect.fail(notFound("templateId" in command ? command.templateId : ""));
      if (rejected.code === "TEMPLATE_LIMIT_REACHED" && command.type === "CreateTemplate" && command.limit !== null) {
        return Effect.fail(new TemplateLimitReached({ plan: principal.account.plan, limit: command.limit }));
      }
      return Effect.fail(rejected);
    }),
  );

const templateOf = (handled: { readonly state: AccountTemplatesState }, templateId: string) => {
  const template = handled.state.templates.get(templateId);
  return template === undefined ? Effect.die(new Error(`template ${templateId} missing after its own command`)) : Effect.succeed(template);
};

export const createTemplate = (principal: Principal, body: TemplateBody) =>
  Effect.gen(function* () {
    const design = yield* checked(body);
    yield* drawnOnce(principal, design);
    const templateId = `tpl_${(yield* Ids).uuid().replaceAll("-", "")}`;
    const { accountId, plan } = principal.account;
    const command = {
      type: "CreateTemplate",
      accountId,
      templateId,
      name: body.name,
      design,
      limit: PLANS[plan].accountTemplates,
      now: (yield* Clock).now(),
    } as const;
    return yield* templateOf(yield* decided(principal, command), templateId);
  });

/** A new version of the template `idOrName` names. */
export const reviseTemplate = (principal: Principal, idOrName: string, body: TemplateBody) =>
  Effect.gen(function* () {
    const { templateId } = yield* getTemplate(principal, idOrName);
    const design = yield* checked(body);
    yield* drawnOnce(principal, design);
    const handled = yield* decided(principal, { type: "ReviseTemplate", templateId, name: body.name, design, now: (yield* Clock).now() });
    return yield* templateOf(handled, templateId);
  });

export const deleteTemplate = (principal: Principal, idOrName: string) =>
  Effect.gen(function* () {
    const template = yield* getTemplate(principal, idOrName);
    yield* decided(principal, { type: "DeleteTemplate", templateId: template.templateId, now: (yield* Clock).now() });
    return template;
  });

/** The account's templates, newest version of each, oldest first. */
export const listAccountTemplates = (principal: Principal) =>
  Effect.map(loadState(accountTemplatesStreamType, accountTemplatesStream(principal.account.accountId)), ({ state }) => [...state.templates.values()]);

/** One of the account's templates by its id or its name; any other account's is not found. */
export const getTemplate = (principal: Principal, idOrName: string) =>
  Effect.flatMap(loadState(accountTemplatesStreamType, accountTemplatesStream(principal.account.accountId)), ({ state }) => {
    const template = findAccountTemplate(state, idOrName);
    return template === undefined ? Effect.fail(notFound(idOrName)) : Effect.succeed<TemplateVersion>(template);
  });
