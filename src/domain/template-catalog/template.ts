import type { PlanId } from "../plan.ts";

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
      /** Where a cover crop is taken when the request names no focus; default "auto" (crop-window.ts). */
      readonly position?: "attention" | "centre";
      /** Padding colour for "contain"; default transparent. */
      readonly background?: Colour;
      /** false: an image already inside the box keeps its size (for "inside"); default true. */
      readonly enlarge?: boolean;
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
  /**
   * Contrast-limited adaptive histogram equalisation over tiles of this size. This and the median
   * read a neighbourhood: an image smaller than it is read as if its edge pixels went on.
   */
  | { readonly op: "clahe"; readonly tile: number; readonly maxSlope: number }
  | { readonly op: "sharpen"; readonly sigma: number }
  /** Median filter over size × size pixels: removes speckle noise while keeping edges. */
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

/**
 * Steps that need a person mask. The mask is found on the uploaded image, so these steps may follow
 * scaling ("inside" resizes) but no step that crops, pads or adds margins.
 */
export const PERSON_MASK_OPS: ReadonlyArray<TemplateStep["op"]> = ["cutout", "blurBackground"];

export const needsPersonMask = (template: Template): boolean => template.steps.some((step) => PERSON_MASK_OPS.includes(step.op));

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

/** The box the result fits: set by the last resize, grown by the margins that later steps add. */
export const outputBox = (steps: ReadonlyArray<TemplateStep>): Pick<TemplateOutput, "width" | "height" | "fit"> | undefined =>
  steps.reduce<Pick<TemplateOutput, "width" | "height" | "fit"> | undefined>((box, step) => {
    switch (step.op) {
      case "resize":
        return { width: step.width, height: step.height, fit: step.fit };
      case "extend":
        return box && { ...box, width: box.width + step.left + step.right, height: box.height + step.top + step.bottom };
      case "dropShadow":
        return box && { ...box, width: box.width + 2 * step.margin, height: box.height + 2 * step.margin };
      default:
        return box;
    }
  }, undefined);
