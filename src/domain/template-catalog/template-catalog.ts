import { AVATAR_TEMPLATES } from "./avatar.ts";
import { BACKGROUND_TEMPLATES } from "./background.ts";
import { ENHANCE_TEMPLATES } from "./enhance.ts";
import { FILTER_TEMPLATES } from "./filter.ts";
import { FORMAT_TEMPLATES } from "./format.ts";
import { FRAME_TEMPLATES } from "./frame.ts";
import { SOCIAL_TEMPLATES } from "./social.ts";
import type { Template } from "./template.ts";
import { THUMBNAIL_TEMPLATES } from "./thumbnail.ts";

/**
 * The catalog POST /generate draws from, in the order GET /templates lists it: one file per
 * template type, a template a line in it (template.ts says what a template is, define-template.ts
 * the steps' shorthands).
 */
export const TEMPLATES: ReadonlyArray<Template> = [
  ...SOCIAL_TEMPLATES,
  ...AVATAR_TEMPLATES,
  ...FILTER_TEMPLATES,
  ...ENHANCE_TEMPLATES,
  ...FRAME_TEMPLATES,
  ...THUMBNAIL_TEMPLATES,
  ...FORMAT_TEMPLATES,
  ...BACKGROUND_TEMPLATES,
];

export const templateTypes = (catalog: ReadonlyArray<Template> = TEMPLATES): ReadonlyArray<string> => [...new Set(catalog.map((t) => t.templateType))];

export type TemplateLookup =
  | { readonly found: true; readonly template: Template }
  | { readonly found: false; readonly field: "templateType" | "template"; readonly allowed: ReadonlyArray<string> };

export const findTemplate = (templateType: string, template: string, catalog: ReadonlyArray<Template> = TEMPLATES): TemplateLookup => {
  const ofType = catalog.filter((t) => t.templateType === templateType);
  if (ofType.length === 0) return { found: false, field: "templateType", allowed: templateTypes(catalog) };
  const match = ofType.find((t) => t.template === template);
  return match ? { found: true, template: match } : { found: false, field: "template", allowed: ofType.map((t) => t.template) };
};
