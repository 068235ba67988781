import type { PlanId } from "./plan.ts";

/**
 * The template catalog is data: each template is a recipe of steps that an image engine
 * interprets. Adding a template never adds a branch to an engine.
 */
export type OutputFormat = "jpeg" | "png" | "webp" | "avif";

export type TemplateStep =
  /** Crop-to-fill at the subject (attention), fit inside, or pad to the box. */
  | { readonly op: "resize"; readonly width: number; readonly height: number; readonly fit: "cover" | "contain" | "inside" };

export interface TemplateOutput {
  readonly width: number;
  readonly height: number;
  readonly fit: "cover" | "contain" | "inside";
  readonly format: OutputFormat;
  readonly quality: number;
}

export interface Template {
  readonly template: string;
  readonly templateType: string;
  readonly description: string;
  readonly output: TemplateOutput;
  readonly plans: ReadonlyArray<PlanId>;
  readonly steps: ReadonlyArray<TemplateStep>;
}

const ALL_PLANS: ReadonlyArray<PlanId> = ["free", "pro", "enterprise"];

const social = (template: string, description: string, width: number, height: number): Template => ({
  template,
  templateType: "social",
  description,
  output: { width, height, fit: "cover", format: "jpeg", quality: 85 },
  plans: ALL_PLANS,
  steps: [{ op: "resize", width, height, fit: "cover" }],
});

export const TEMPLATES: ReadonlyArray<Template> = [
  social("instagram-square", "Instagram feed post, 1:1, cropped around the subject", 1080, 1080),
  social("instagram-story", "Instagram/TikTok story, 9:16, cropped around the subject", 1080, 1920),
  social("twitter-header", "X/Twitter profile header, 3:1", 1500, 500),
  social("youtube-thumbnail", "YouTube video thumbnail, 16:9", 1280, 720),
];

export const templateTypes = (catalog: ReadonlyArray<Template> = TEMPLATES): ReadonlyArray<string> => [
  ...new Set(catalog.map((t) => t.templateType)),
];

export type TemplateLookup =
  | { readonly found: true; readonly template: Template }
  | { readonly found: false; readonly field: "templateType" | "template"; readonly allowed: ReadonlyArray<string> };

export const findTemplate = (
  templateType: string,
  template: string,
  catalog: ReadonlyArray<Template> = TEMPLATES,
): TemplateLookup => {
  const ofType = catalog.filter((t) => t.templateType === templateType);
  if (ofType.length === 0) return { found: false, field: "templateType", allowed: templateTypes(catalog) };
  const match = ofType.find((t) => t.template === template);
  return match
    ? { found: true, template: match }
    : { found: false, field: "template", allowed: ofType.map((t) => t.template) };
};
