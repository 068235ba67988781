import type { PlanId } from "./plan.ts";

/**
 * The template catalog is data: each template is a recipe of steps that an image engine
 * interprets. Adding a template never adds a branch to an engine.
 */
export type OutputFormat = "jpeg" | "png" | "webp" | "avif";

/** A colour as `#rrggbb` or `#rrggbbaa`. */
export type Colour = string;

export type Fit = "cover" | "contain" | "inside";

/**
 * The generic operations an engine interprets, in order, each on the result of the one before.
 * Sizes are pixels of the image as it is at that step; fractions are of its shorter side.
 */
export type TemplateStep =
  /** Crop-to-fill at the subject (attention) or centre, fit inside, or pad to the box. */
  | {
      readonly op: "resize";
      readonly width: number;
      readonly height: number;
      readonly fit: Fit;
      /** Where a cover crop is taken; default "attention" (the most salient region). */
      readonly position?: "attention" | "centre";
      /** Padding colour for "contain"; default transparent. */
      readonly background?: Colour;
    }
  /** Luminance to all three channels (an sRGB image with equal channels). */
  | { readonly op: "grayscale" }
  /** out = matrix × (r, g, b): sepia and other colour mixes. */
  | { readonly op: "recomb"; readonly matrix: readonly [Row3, Row3, Row3] }
  /** Multipliers: 1 leaves the image unchanged; hue in degrees. */
  | { readonly op: "modulate"; readonly brightness?: number; readonly saturation?: number; readonly hue?: number }
  /** out = multiply × in + add, per channel: contrast about mid-grey when add = 128 × (1 − multiply). */
  | { readonly op: "linear"; readonly multiply: number; readonly add: number }
  /** Stretches luminance so that the given percentiles become black and white. */
  | { readonly op: "normalise"; readonly lower: number; readonly upper: number }
  /** Contrast-limited adaptive histogram equalisation over tiles of this size. */
  | { readonly op: "clahe"; readonly tile: number; readonly maxSlope: number }
  | { readonly op: "sharpen"; readonly sigma: number }
  /** Median filter: removes speckle noise while keeping edges. */
  | { readonly op: "median"; readonly size: number }
  | { readonly op: "blur"; readonly sigma: number }
  /** Darkens towards the corners; strength 0..1 is the opacity of black at the corners. */
  | { readonly op: "vignette"; readonly strength: number }
  /** Makes the corners transparent; radius 0.5 turns a square into a circle. */
  | { readonly op: "roundCorners"; readonly radius: number }
  /** Adds margins of one colour (borders, the polaroid's wide bottom). */
  | { readonly op: "extend"; readonly top: number; readonly right: number; readonly bottom: number; readonly left: number; readonly colour: Colour }
  /** A soft shadow below-right on a transparent margin of `margin` pixels. */
  | { readonly op: "dropShadow"; readonly margin: number; readonly blur: number; readonly offset: number; readonly opacity: number }
  /** Fills transparent areas with a colour. */
  | { readonly op: "flatten"; readonly colour: Colour }
  /** Keeps the person, makes the rest transparent (needs a person mask). */
  | { readonly op: "cutout" }
  /** Keeps the person sharp over a blurred copy of the photo (needs a person mask). */
  | { readonly op: "blurBackground"; readonly sigma: number };

export type Row3 = readonly [number, number, number];

/** Steps that need a person mask: they must come before any step that changes the geometry. */
export const PERSON_MASK_OPS: ReadonlyArray<TemplateStep["op"]> = ["cutout", "blurBackground"];

export const needsPersonMask = (template: Template): boolean =>
  template.steps.some((step) => PERSON_MASK_OPS.includes(step.op));

export interface TemplateOutput {
  readonly width: number;
  readonly height: number;
  readonly fit: Fit;
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
