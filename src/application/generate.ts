import { Effect } from "effect";
import { echo } from "../domain/echo.ts";
import { findTemplate, TEMPLATES } from "../domain/template-catalog.ts";
import type { RenderedImage } from "../ports/image.ts";
import { ImageEngine } from "../ports/image-engine.ts";
import { ImageInspector } from "../ports/image-inspector.ts";
import type { Principal } from "./authenticate.ts";
import { InsufficientPermissions, InvalidRequest } from "./errors.ts";
import { decodeImagePayload } from "./image-payload.ts";
import { entitle, runTransformation } from "./run-transformation.ts";
import { ServiceSettings } from "./settings.ts";
import { storeResult } from "./store-result.ts";

export interface GenerateInput {
  readonly image: string;
  readonly template: string;
  readonly templateType: string;
}

export interface GeneratedResult {
  readonly resultId: string;
  readonly expiresAt: Date;
  readonly template: string;
  readonly templateType: string;
  readonly format: RenderedImage["format"];
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
}

/** POST /generate: apply a catalog template to the client's image and store the result. */
export const generate = (principal: Principal, input: GenerateInput) =>
  Effect.gen(function* () {
    const lookup = findTemplate(input.templateType, input.template, TEMPLATES);
    if (!lookup.found) {
      const message = `Unknown ${lookup.field} "${echo(input[lookup.field])}". Allowed: ${lookup.allowed.join(", ")}.`;
      return yield* new InvalidRequest({ message, details: [{ path: lookup.field, message }] });
    }
    const template = lookup.template;
    const entitled = yield* entitle(principal, "generate");
    if (!template.plans.includes(principal.account.plan)) {
      return yield* new InsufficientPermissions({
        message: `The ${principal.account.plan} plan does not include the ${template.templateType}/${template.template} template.`,
      });
    }
    const settings = yield* ServiceSettings;
    const process = Effect.gen(function* () {
      const bytes = yield* decodeImagePayload("image", input.image, settings.maxImageBytes);
      const image = yield* (yield* ImageInspector).inspect(bytes);
      const rendered = yield* (yield* ImageEngine).render(image, template);
      const { resultId, expiresAt, output } = yield* storeResult(rendered);
      const value: GeneratedResult = {
        resultId,
        expiresAt,
        template: template.template,
        templateType: template.templateType,
        format: rendered.format,
        width: rendered.width,
        height: rendered.height,
        bytes: rendered.bytes.byteLength,
      };
      return { value, output: { ...output, inputFormat: image.format } };
    });
    return yield* runTransformation(entitled, { template: template.template, templateType: template.templateType }, process);
  });
