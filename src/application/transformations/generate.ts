import { Effect } from "effect";
import { autoFormatOutput, autoFormatRefusal, type GenerateFormat } from "../../domain/auto-format.ts";
import type { Focus } from "../../domain/crop-window.ts";
import { echo } from "../../domain/echo.ts";
import { findTemplate, TEMPLATES } from "../../domain/template-catalog/template-catalog.ts";
import { ImageEngine } from "../../ports/engines/image-engine.ts";
import { ImageInspector } from "../../ports/engines/image-inspector.ts";
import type { Principal } from "../access/authenticate.ts";
import { type AccountTemplateCall, accountTemplateWork } from "../account-templates/account-template-work.ts";
import { InsufficientPermissions, InvalidRequest } from "../errors.ts";
import { ServiceSettings } from "../settings.ts";
import { type GeneratedResult, renderedFields } from "./generated-result.ts";
import { decodeImagePayload } from "./image-payload.ts";
import { entitle, runPlanned } from "./run-transformation.ts";
import { storeResult } from "./store-result.ts";

/** The templateType (the API says "custom") that names one of the calling account's templates (by name or id). */
export const ACCOUNT_TEMPLATE_TYPE = "custom" as const;

/** A catalog template's call: the pair is checked against the catalog here, each value already one the catalog knows. */
export interface CatalogTemplateCall {
  readonly templateType: string;
  readonly template: string;
  readonly image: string;
  readonly focus?: Focus;
  readonly format?: GenerateFormat;
}

type GenerateAccountTemplateCall = AccountTemplateCall & { readonly templateType: typeof ACCOUNT_TEMPLATE_TYPE };

/** A catalog template's call, or an account template's (templateType custom). */
export type GenerateInput = CatalogTemplateCall | GenerateAccountTemplateCall;

const isAccountTemplateCall = (input: GenerateInput): input is GenerateAccountTemplateCall => input.templateType === ACCOUNT_TEMPLATE_TYPE;

/** How the audit trail records the focus and the format asked for. */
const choiceParameters = ({ focus, format }: GenerateInput): Readonly<Record<string, string>> => ({
  ...(focus === undefined ? {} : { focus: typeof focus === "string" ? focus : `${focus.x},${focus.y}` }),
  ...(format === undefined ? {} : { format }),
});

const formatRefused = (message: string) => new InvalidRequest({ message: `format: ${message}.`, details: [{ path: "format", message }] });

/** A catalog template's work: its recipe applied to the client's image. */
const catalogWork = (principal: Principal, input: CatalogTemplateCall) =>
  Effect.gen(function* () {
    const lookup = findTemplate(input.templateType, input.template, TEMPLATES);
    if (!lookup.found) {
      const message = `Unknown ${lookup.field} "${echo(input[lookup.field])}". Allowed: ${lookup.allowed.join(", ")}${lookup.field === "templateType" ? `, or ${ACCOUNT_TEMPLATE_TYPE} for your own templates` : ""}.`;
      return yield* new InvalidRequest({ message, details: [{ path: lookup.field, message }] });
    }
    const refusal = input.format === "auto" ? autoFormatRefusal(lookup.template) : undefined;
    if (refusal !== undefined) return yield* formatRefused(refusal);
    // An auto result is kept as a JPEG, which its result URL negotiates (auto-format.ts).
    const template = input.format === "auto" ? { ...lookup.template, output: autoFormatOutput(lookup.template.output) } : lookup.template;
    const { image } = input;
    const entitled = yield* entitle(principal, "generate");
    if (!template.plans.includes(principal.account.plan)) {
      return yield* new InsufficientPermissions({
        message: `The ${principal.account.plan} plan does not include the ${template.templateType}/${template.template} template.`,
      });
    }
    const process = Effect.gen(function* () {
      const settings = yield* ServiceSettings;
      const bytes = yield* decodeImagePayload("image", image, settings.maxImageBytes);
      const inspected = yield* (yield* ImageInspector).inspect(bytes);
      const rendered = yield* (yield* ImageEngine).render(inspected, template, input.focus === undefined ? {} : { focus: input.focus });
      const { resultId, expiresAt, output } = yield* storeResult(rendered);
      const value: GeneratedResult = {
        resultId,
        expiresAt,
        template: template.template,
        templateType: template.templateType,
        ...renderedFields(rendered),
      };
      return { value, output: { ...output, inputFormat: inspected.format } };
    });
    return { entitled, parameters: { template: template.template, templateType: template.templateType }, process };
  });

/** An account template's work: its design drawn with the call's image, text and images. */
const drawAccountTemplate = (principal: Principal, input: AccountTemplateCall) =>
  Effect.gen(function* () {
    const { template, process, variants } = yield* accountTemplateWork(principal, input);
    const entitled = yield* entitle(principal, "generate");
    const parameters = {
      template: template.name,
      templateType: ACCOUNT_TEMPLATE_TYPE,
      templateId: template.templateId,
      templateVersion: String(template.version),
      ...(input.variants ? { variants: variants.join(",") } : {}),
    };
    // One unit per layout drawn, reserved together: all are charged, or none.
    return { entitled, parameters, process, units: variants.length };
  });

/**
 * POST /generate: a catalog template applied to the client's image, or one of the account's own
 * templates drawn; either way one metered transformation (reserve, run, commit or release) and
 * one stored result.
 */
export const planGenerate = (principal: Principal, input: GenerateInput) =>
  Effect.gen(function* () {
    const work = yield* isAccountTemplateCall(input) ? drawAccountTemplate(principal, input) : catalogWork(principal, input);
    const units = "units" in work ? work.units : 1;
    return { entitled: work.entitled, parameters: { ...work.parameters, ...choiceParameters(input) }, process: work.process, units };
  });

export const generate = (principal: Principal, input: GenerateInput) => Effect.flatMap(planGenerate(principal, input), (plan) => runPlanned(plan));
