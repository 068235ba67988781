import { type Template, type TemplateOutput, type TemplateStep } from "./template-catalog/template.ts";
import { findTemplate } from "./template-catalog/template-catalog.ts";

/**
 * `format: "auto"` on /generate: the result URL picks AVIF, WebP or JPEG by the fetching browser's
 * Accept header, as it does for a JPEG template's result (negotiate-format.ts). JPEG is the format
 * every browser shows, so an auto result is kept as a JPEG and its variants are made from it; a
 * template whose result keeps transparent pixels (round avatars, cut-outs, shadows) or that makes
 * lossless PNG on purpose cannot be served as JPEG, and refuses auto (docs/api-decisions.md).
 */
export const GENERATE_FORMATS = ["auto"] as const;
export type GenerateFormat = (typeof GENERATE_FORMATS)[number];

/** Whether a recipe leaves transparent pixels in its result (the upload's own alpha aside: auto flattens it, as JPEG templates do). */
export const addsTransparency = (steps: ReadonlyArray<TemplateStep>): boolean =>
  steps.reduce((transparent, step) => {
    switch (step.op) {
      case "roundCorners":
      case "cutout":
      case "dropShadow":
        return true;
      case "flatten":
        return false;
      case "resize":
        return transparent || (step.fit === "contain" && step.background === undefined);
      default:
        return transparent;
    }
  }, false);

/** Why a template refuses auto, or undefined when it takes it. */
export const autoFormatRefusal = (template: Template): string | undefined => {
  const name = `${template.templateType}/${template.template}`;
  if (addsTransparency(template.steps)) return `${name} makes a transparent ${template.output.format.toUpperCase()}: its format is kept; leave format out`;
  if (template.output.format === "png") return `${name} makes a lossless PNG: its format is kept; leave format out`;
  return undefined;
};

/** The JPEG an auto result is kept as: a JPEG template's own output, else the format/jpeg template's quality at the same size. */
export const autoFormatOutput = (output: TemplateOutput): TemplateOutput => {
  if (output.format === "jpeg") return output;
  const jpeg = findTemplate("format", "jpeg");
  if (!jpeg.found) throw new Error("the catalog has no format/jpeg template");
  return { ...output, format: "jpeg", quality: jpeg.template.output.quality };
};

/** An account design's canvas: auto where it is not PNG and its background is opaque (layers drawn on it cannot make it transparent). */
export const canvasAutoFormatRefusal = (canvas: { readonly format: string; readonly background: string }): string | undefined => {
  if (canvas.format === "png") return "the template's canvas is a PNG: its format is kept; leave format out";
  const alpha = canvas.background.length === 9 ? canvas.background.slice(7).toLowerCase() : "ff";
  if (alpha !== "ff") return "the template's canvas background is transparent: its format is kept; leave format out";
  return undefined;
};
