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

const ALL_PLANS: ReadonlyArray<PlanId> = ["free", "pro", "enterprise"];
/** Background templates run a segmentation model: the paid plans only. */
const PAID_PLANS: ReadonlyArray<PlanId> = ["pro", "enterprise"];

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

const define = (
  templateType: string,
  template: string,
  description: string,
  format: OutputFormat,
  quality: number,
  steps: ReadonlyArray<TemplateStep>,
  plans: ReadonlyArray<PlanId> = ALL_PLANS,
): Template => {
  const box = outputBox(steps);
  if (!box) throw new Error(`template ${templateType}/${template} has no resize step`);
  return { template, templateType, description, output: { ...box, format, quality }, plans, steps };
};

/** Crop to fill the box: faces first, else the most salient region. */
const cover = (width: number, height: number): TemplateStep => ({ op: "resize", width, height, fit: "cover" });
/** Fit inside the box, never enlarging. */
const inside = (width: number, height: number): TemplateStep => ({ op: "resize", width, height, fit: "inside", enlarge: false });
const margin = (px: number, colour: Colour): TemplateStep => ({ op: "extend", top: px, right: px, bottom: px, left: px, colour });
const contrast = (multiply: number): TemplateStep => ({ op: "linear", multiply, add: 128 * (1 - multiply) });

const SEPIA: readonly [Row3, Row3, Row3] = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

const social = (template: string, description: string, width: number, height: number): Template =>
  define("social", template, description, "jpeg", 85, [cover(width, height)]);

const filter = (template: string, description: string, steps: ReadonlyArray<TemplateStep>): Template =>
  define("filter", template, description, "jpeg", 90, [inside(2048, 2048), ...steps]);

const enhance = (template: string, description: string, steps: ReadonlyArray<TemplateStep>): Template =>
  define("enhance", template, description, "jpeg", 92, [inside(4096, 4096), ...steps]);

export const TEMPLATES: ReadonlyArray<Template> = [
  social("instagram-square", "Instagram feed post, 1:1, cropped around the subject", 1080, 1080),
  social("instagram-portrait", "Instagram feed post, 4:5 portrait", 1080, 1350),
  social("instagram-story", "Instagram/TikTok story, 9:16, cropped around the subject", 1080, 1920),
  social("facebook-post", "Facebook link or feed image, 1.91:1", 1200, 630),
  social("facebook-cover", "Facebook page cover", 1640, 624),
  social("twitter-post", "X/Twitter in-feed image, 16:9", 1600, 900),
  social("twitter-header", "X/Twitter profile header, 3:1", 1500, 500),
  social("linkedin-banner", "LinkedIn profile background, 4:1", 1584, 396),
  social("youtube-thumbnail", "YouTube video thumbnail, 16:9", 1280, 720),
  social("pinterest-pin", "Pinterest pin, 2:3", 1000, 1500),

  define("avatar", "square", "Square profile picture centred on the subject, 400×400", "jpeg", 90, [cover(400, 400)]),
  define("avatar", "square-large", "Square profile picture centred on the subject, 1024×1024", "jpeg", 90, [cover(1024, 1024)]),
  define("avatar", "circle", "Round profile picture centred on the subject, transparent corners (PNG)", "png", 100, [
    cover(400, 400),
    { op: "roundCorners", radius: 0.5 },
  ]),
  define("avatar", "circle-webp", "Round profile picture centred on the subject, transparent corners (WebP)", "webp", 90, [
    cover(400, 400),
    { op: "roundCorners", radius: 0.5 },
  ]),
  define("avatar", "rounded", "Square profile picture with rounded corners (PNG)", "png", 100, [cover(400, 400), { op: "roundCorners", radius: 0.2 }]),

  filter("grayscale", "Black and white", [{ op: "grayscale" }]),
  filter("sepia", "Warm brown sepia tone", [{ op: "recomb", matrix: SEPIA }]),
  filter("vintage", "Faded sepia with soft contrast and darkened corners", [
    { op: "recomb", matrix: SEPIA },
    { op: "modulate", saturation: 0.85, brightness: 1.05 },
    contrast(0.9),
    { op: "vignette", strength: 0.5 },
  ]),
  filter("noir", "High-contrast black and white with a heavy vignette", [{ op: "grayscale" }, contrast(1.4), { op: "vignette", strength: 0.7 }]),
  filter("vivid", "Punchier colours and contrast", [{ op: "modulate", saturation: 1.5 }, contrast(1.15)]),
  filter("warm", "Golden, warmer colour balance", [
    {
      op: "recomb",
      matrix: [
        [1.1, 0, 0],
        [0, 1.02, 0],
        [0, 0, 0.85],
      ],
    },
  ]),
  filter("cool", "Bluer, cooler colour balance", [
    {
      op: "recomb",
      matrix: [
        [0.88, 0, 0],
        [0, 1, 0],
        [0, 0, 1.12],
      ],
    },
  ]),
  filter("fade", "Lifted blacks and muted colours", [
    { op: "linear", multiply: 0.8, add: 40 },
    { op: "modulate", saturation: 0.7 },
  ]),
  filter("invert", "Colour negative", [{ op: "linear", multiply: -1, add: 255 }]),

  enhance("auto-level", "Stretches the tones so that the darkest 1% is black and the brightest 1% white", [{ op: "normalise", lower: 1, upper: 99 }]),
  // Adaptive equalisation costs about a second per megapixel here: this one is capped at 1600 pixels.
  define("enhance", "local-contrast", "Brings out detail in shadows and highlights (adaptive equalisation), within 1600×1600", "jpeg", 92, [
    inside(1600, 1600),
    { op: "clahe", tile: 16, maxSlope: 3 },
  ]),
  enhance("sharpen", "Crisper edges and fine detail", [{ op: "sharpen", sigma: 1.2 }]),
  enhance("denoise", "Removes speckle noise while keeping edges", [{ op: "median", size: 3 }]),
  enhance("brighten", "Brighter exposure for dark photos", [{ op: "modulate", brightness: 1.25 }]),

  define("frame", "polaroid", "Instant-photo print: square crop on a white card with a wide bottom edge", "jpeg", 90, [
    cover(600, 600),
    { op: "extend", top: 30, right: 30, bottom: 120, left: 30, colour: "#fbfbf8" },
  ]),
  define("frame", "rounded-corners", "Rounded corners, transparent outside (PNG)", "png", 100, [inside(1200, 1200), { op: "roundCorners", radius: 0.06 }]),
  define("frame", "drop-shadow", "Floating print with a soft shadow on a transparent margin (PNG)", "png", 100, [
    inside(1000, 1000),
    { op: "dropShadow", margin: 40, blur: 12, offset: 12, opacity: 0.6 },
  ]),
  define("frame", "border-white", "A 40-pixel white border", "jpeg", 90, [inside(1200, 1200), margin(40, "#ffffff")]),
  define("frame", "border-black", "A 40-pixel black border", "jpeg", 90, [inside(1200, 1200), margin(40, "#000000")]),
  define("frame", "gallery-mat", "Portrait print behind a thin dark line on a wide cream mat", "jpeg", 90, [
    cover(800, 1000),
    margin(4, "#333333"),
    margin(80, "#f4f1ea"),
  ]),

  define("thumbnail", "small", "150×150 square thumbnail (JPEG)", "jpeg", 80, [cover(150, 150)]),
  define("thumbnail", "medium", "320×320 square thumbnail (WebP)", "webp", 80, [cover(320, 320)]),
  define("thumbnail", "large", "640×640 square thumbnail (WebP)", "webp", 82, [cover(640, 640)]),
  define("thumbnail", "preview-avif", "Preview within 640×640, aspect kept (AVIF)", "avif", 55, [inside(640, 640)]),

  define("format", "webp", "Converts to WebP, within 4096×4096", "webp", 82, [inside(4096, 4096)]),
  define("format", "avif", "Converts to AVIF, within 4096×4096", "avif", 55, [inside(4096, 4096)]),
  define("format", "jpeg", "Converts to JPEG, within 4096×4096", "jpeg", 88, [inside(4096, 4096)]),
  define("format", "png", "Converts to lossless PNG, within 4096×4096", "png", 100, [inside(4096, 4096)]),

  define("background", "remove", "Removes the background around the person: transparent PNG", "png", 100, [inside(2048, 2048), { op: "cutout" }], PAID_PLANS),
  define(
    "background",
    "remove-webp",
    "Removes the background around the person: transparent WebP",
    "webp",
    90,
    [inside(2048, 2048), { op: "cutout" }],
    PAID_PLANS,
  ),
  define(
    "background",
    "white",
    "Replaces the background with white",
    "jpeg",
    90,
    [inside(2048, 2048), { op: "cutout" }, { op: "flatten", colour: "#ffffff" }],
    PAID_PLANS,
  ),
  define(
    "background",
    "blur",
    "Blurs the background behind the person (portrait mode)",
    "jpeg",
    90,
    [inside(2048, 2048), { op: "blurBackground", sigma: 12 }],
    PAID_PLANS,
  ),
  define(
    "background",
    "white-square",
    "Person on white, padded to a 1080×1080 square (product and profile shots)",
    "jpeg",
    90,
    [
      inside(2048, 2048),
      { op: "cutout" },
      { op: "flatten", colour: "#ffffff" },
      { op: "resize", width: 1080, height: 1080, fit: "contain", background: "#ffffff" },
    ],
    PAID_PLANS,
  ),
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
