import { Effect } from "effect";
import type { Focus } from "../domain/crop-window.ts";
import { DESIGN_LIMITS, textContentIssues } from "../domain/template-design.ts";
import { ImageEngine } from "../ports/image-engine.ts";
import { ImageInspector } from "../ports/image-inspector.ts";
import { getTemplate } from "./account-templates.ts";
import type { Principal } from "./authenticate.ts";
import { embeddedImages } from "./design-images.ts";
import { type FieldIssue, InvalidRequest } from "./errors.ts";
import { type GeneratedResult, renderedFields } from "./generated-result.ts";
import { decodeImagePayload } from "./image-payload.ts";
import { ServiceSettings } from "./settings.ts";
import { storeResult } from "./store-result.ts";

/** What `/generate` takes for an account's template (`templateType: "custom"`). */
export interface AccountTemplateCall {
  readonly template: string;
  readonly image?: string;
  readonly focus?: Focus;
  /** Replaces text layers' content, by layer name. */
  readonly text?: Readonly<Record<string, string>>;
  /** Replaces image layers' pictures, by layer name (base64). */
  readonly images?: Readonly<Record<string, string>>;
}

const refused = (details: ReadonlyArray<FieldIssue>) =>
  new InvalidRequest({ message: details.map(({ path, message }) => `${path}: ${message}`).join("; "), details });

/**
 * The work of a `/generate` call on one of the account's own templates, at its newest version:
 * what the call names is checked before any quota is touched, the drawing runs inside the
 * transformation (generate.ts), like a catalog template's.
 */
export const accountTemplateWork = (principal: Principal, call: AccountTemplateCall) =>
  Effect.gen(function* () {
    const template = yield* getTemplate(principal, call.template).pipe(
      Effect.catchTag("NotFound", ({ message }) => Effect.fail(refused([{ path: "template", message }]))),
    );
    const { design } = template;
    const layerNames = (type: "text" | "image") => design.layers.flatMap((layer) => (layer.type === type ? [layer.name] : []));
    const issues: Array<FieldIssue> = [];
    for (const [field, type] of [
      ["text", "text"],
      ["images", "image"],
    ] as const) {
      const known = layerNames(type);
      for (const name of Object.keys(call[field] ?? {})) {
        if (!known.includes(name))
          issues.push({ path: `${field}.${name}`, message: `no ${type} layer of that name; the template has: ${known.join(", ") || "none"}` });
      }
    }
    for (const [name, text] of Object.entries(call.text ?? {})) {
      if (text.length > DESIGN_LIMITS.maxTextLength)
        issues.push({ path: `text.${name}`, message: `${text.length} characters; the limit is ${DESIGN_LIMITS.maxTextLength}` });
      issues.push(...textContentIssues(text, `text.${name}`));
    }
    const hasPhoto = design.layers.some((layer) => layer.type === "photo");
    if (hasPhoto && call.image === undefined) issues.push({ path: "image", message: "the template has a photo layer: image is required" });
    if (issues.length > 0) return yield* refused(issues);

    const process = Effect.gen(function* () {
      const settings = yield* ServiceSettings;
      const photo =
        hasPhoto && call.image !== undefined
          ? yield* (yield* ImageInspector).inspect(yield* decodeImagePayload("image", call.image, settings.maxImageBytes))
          : undefined;
      const images = yield* embeddedImages(design, call.images ?? {});
      const text = Object.fromEntries(design.layers.flatMap((layer) => (layer.type === "text" ? [[layer.name, call.text?.[layer.name] ?? layer.text]] : [])));
      const rendered = yield* (yield* ImageEngine).renderDesign(design, {
        ...(photo ? { photo } : {}),
        images,
        text,
        ...(call.focus ? { focus: call.focus } : {}),
      });
      const { resultId, expiresAt, output } = yield* storeResult(rendered);
      const value: GeneratedResult = {
        resultId,
        expiresAt,
        template: template.name,
        templateType: "custom",
        templateId: template.templateId,
        templateVersion: template.version,
        ...renderedFields(rendered),
      };
      return { value, output: { ...output, ...(photo ? { inputFormat: photo.format } : {}) } };
    });
    return { template, process };
  });
