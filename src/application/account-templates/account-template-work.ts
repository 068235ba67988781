import { Effect } from "effect";
import { DEFAULT_VARIANT, DESIGN_LIMITS, type DesignLayout, layoutOf, textContentIssues } from "../../domain/account-templates/account-template-design.ts";
import { unavailableFontIssues } from "../../domain/account-templates/unavailable-fonts.ts";
import { canvasAutoFormatRefusal, type GenerateFormat } from "../../domain/auto-format.ts";
import type { Face, Focus } from "../../domain/crop-window.ts";
import { ImageEngine } from "../../ports/engines/image-engine.ts";
import { ImageInspector } from "../../ports/engines/image-inspector.ts";
import { TemplateFonts } from "../../ports/engines/template-fonts.ts";
import type { Principal } from "../access/authenticate.ts";
import { type FieldIssue, InvalidRequest } from "../errors.ts";
import { ServiceSettings } from "../settings.ts";
import { type GeneratedResult, renderedFields } from "../transformations/generated-result.ts";
import { decodeImagePayload } from "../transformations/image-payload.ts";
import { storeResult } from "../transformations/store-result.ts";
import { embeddedImages } from "./account-template-images.ts";
import { getTemplate } from "./account-templates.ts";

/** What `/generate` takes for an account's template (`templateType: "custom"`). */
export interface AccountTemplateCall {
  readonly template: string;
  readonly image?: string;
  readonly focus?: Focus;
  /** auto: the result URL picks AVIF, WebP or JPEG by Accept (domain/auto-format.ts). */
  readonly format?: GenerateFormat;
  /** Replaces text layers' content, by layer name. */
  readonly text?: Readonly<Record<string, string>>;
  /** Replaces image layers' pictures, by layer name (base64). */
  readonly images?: Readonly<Record<string, string>>;
  /** The layouts to draw, by name (`default` for the default one); left out: the default alone. */
  readonly variants?: ReadonlyArray<string>;
}

const refused = (details: ReadonlyArray<FieldIssue>) =>
  new InvalidRequest({ message: details.map(({ path, message }) => `${path}: ${message}`).join("; "), details });

/** The layouts `variants` names, or what is wrong with it. */
const chosenLayouts = (design: Parameters<typeof layoutOf>[0], variants: ReadonlyArray<string> | undefined) => {
  const names = variants ?? [DEFAULT_VARIANT];
  const known = [DEFAULT_VARIANT, ...Object.keys(design.variants ?? {})];
  const issues: Array<FieldIssue> = [];
  if (names.length === 0 || names.length > known.length) {
    return { layouts: [], issues: [{ path: "variants", message: `names 1 to ${known.length} of: ${known.join(", ")}, each once` }] };
  }
  const layouts: Array<readonly [string, DesignLayout]> = [];
  names.forEach((name, index) => {
    const layout = layoutOf(design, name);
    if (layout === undefined) issues.push({ path: `variants.${index}`, message: `no variant of that name; the template has: ${known.join(", ")}` });
    else if (names.indexOf(name) !== index) issues.push({ path: `variants.${index}`, message: `${name} is named twice` });
    else layouts.push([name, layout]);
  });
  return { layouts, issues };
};

/**
 * The work of a `/generate` call on one of the account's own templates, at its newest version:
 * what the call names is checked before any quota is touched, the drawing runs inside the
 * transformation (generate.ts), like a catalog template's. Each layout drawn is one unit of quota;
 * they are drawn one after another inside one transformation, so a failure in any charges none.
 */
export const accountTemplateWork = (principal: Principal, call: AccountTemplateCall) =>
  Effect.gen(function* () {
    const template = yield* getTemplate(principal, call.template).pipe(
      Effect.catchTag("NotFound", ({ message }) => Effect.fail(refused([{ path: "template", message }]))),
    );
    const { layouts: chosen, issues } = chosenLayouts(template.design, call.variants);
    // The layer names below are checked against the layouts chosen, so a wrong choice is answered alone.
    if (issues.length > 0) return yield* refused(issues);
    // An auto result is drawn as a JPEG, which its result URL negotiates (auto-format.ts).
    const layouts: ReadonlyArray<readonly [string, DesignLayout]> =
      call.format === "auto" ? chosen.map(([name, layout]) => [name, { ...layout, canvas: { ...layout.canvas, format: "jpeg" as const } }] as const) : chosen;
    const layers = layouts.flatMap(([, layout]) => layout.layers);
    const layerNames = (type: "text" | "image") => [...new Set(layers.flatMap((layer) => (layer.type === type ? [layer.name] : [])))];
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
    const hasPhoto = layers.some((layer) => layer.type === "photo");
    for (const [name, layout] of call.format === "auto" ? chosen : []) {
      const formatRefusal = canvasAutoFormatRefusal(layout.canvas);
      if (formatRefusal !== undefined) issues.push({ path: "format", message: name === DEFAULT_VARIANT ? formatRefusal : `${name}: ${formatRefusal}` });
    }
    if (hasPhoto && call.image === undefined) issues.push({ path: "image", message: "the template has a photo layer: image is required" });
    // A template kept while a family was available, drawn after a start that left it out: refused, not drawn in another font.
    const available = new Set((yield* TemplateFonts).available.map(({ family }) => family));
    for (const [name, layout] of chosen) {
      for (const issue of unavailableFontIssues(layout, available))
        issues.push({ path: "template", message: `${name === DEFAULT_VARIANT ? "" : `variants.${name}.`}${issue.path}: ${issue.message}` });
    }
    if (issues.length > 0) return yield* refused(issues);

    const process = Effect.gen(function* () {
      const settings = yield* ServiceSettings;
      const engine = yield* ImageEngine;
      const photo =
        hasPhoto && call.image !== undefined
          ? yield* (yield* ImageInspector).inspect(yield* decodeImagePayload("image", call.image, settings.maxImageBytes))
          : undefined;
      const results: Array<{ readonly value: GeneratedResult; readonly output: Readonly<Record<string, string>> }> = [];
      // The faces the first layout's photo crop found serve the others: the photo is looked at once.
      let photoFaces: ReadonlyArray<Face> | undefined;
      for (const [variant, layout] of layouts) {
        const images = yield* embeddedImages(layout, call.images ?? {}, variant === DEFAULT_VARIANT ? "" : `variants.${variant}.`);
        const text = Object.fromEntries(layout.layers.flatMap((layer) => (layer.type === "text" ? [[layer.name, call.text?.[layer.name] ?? layer.text]] : [])));
        const rendered = yield* engine.renderDesign(layout, {
          ...(photo ? { photo } : {}),
          images,
          text,
          ...(call.focus ? { focus: call.focus } : {}),
          ...(photoFaces ? { photoFaces } : {}),
        });
        photoFaces ??= rendered.framing?.faces;
        const { resultId, expiresAt, output } = yield* storeResult(rendered);
        const value: GeneratedResult = {
          resultId,
          expiresAt,
          template: template.name,
          templateType: "custom",
          templateId: template.templateId,
          templateVersion: template.version,
          ...(call.variants ? { variant } : {}),
          ...renderedFields(rendered),
        };
        results.push({ value, output });
      }
      const [first] = results;
      const value: GeneratedResult = call.variants ? { ...first!.value, results: results.map((result) => result.value) } : first!.value;
      // The audit trail keeps the first result's fields, and every result's id.
      const output = { ...first!.output, ...(call.variants ? { resultIds: results.map((result) => result.value.resultId).join(",") } : {}) };
      return { value, output: { ...output, ...(photo ? { inputFormat: photo.format } : {}) } };
    });
    return { template, process, variants: layouts.map(([name]) => name) };
  });
