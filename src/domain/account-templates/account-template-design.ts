/**
 * A design of the customer's own (issue 27): a canvas and the layers drawn on it, bottom first.
 * The shapes of the fields are checked where the body is decoded; the rules here are the ones
 * that compare fields (a box inside its canvas, sizes in order) and the limits that keep one
 * design's render bounded.
 */

/**
 * The families a text layer may name, under the names customers were given: the npm font packages
 * the service ships (docs/fonts.md; the CJK names are fontconfig aliases of Google's Noto Sans
 * SC/TC/KR). The one list: the body's schema, the design's rules and GET /templates/fonts all read
 * it; a family that fails the start check is left out of what may be used (TemplateFonts port).
 * A character a family lacks is drawn from another of them (fontconfig's fallback): Arabic,
 * Hebrew and CJK text draws in any family.
 */
export const TEMPLATE_FONTS = [
  "DejaVu Sans",
  "DejaVu Serif",
  "DejaVu Sans Mono",
  "Noto Sans",
  "Noto Serif",
  "Noto Sans Arabic",
  "Noto Sans Hebrew",
  "Noto Sans CJK SC",
  "Noto Sans CJK TC",
] as const;
export type TemplateFont = (typeof TEMPLATE_FONTS)[number];

/** The scripts each family draws with glyphs of its own. */
export const FONT_SCRIPTS: Readonly<Record<TemplateFont, ReadonlyArray<string>>> = {
  "DejaVu Sans": ["Latin", "Greek", "Cyrillic"],
  "DejaVu Serif": ["Latin", "Greek", "Cyrillic"],
  "DejaVu Sans Mono": ["Latin", "Greek", "Cyrillic"],
  "Noto Sans": ["Latin", "Greek", "Cyrillic"],
  "Noto Serif": ["Latin", "Greek", "Cyrillic"],
  "Noto Sans Arabic": ["Arabic"],
  "Noto Sans Hebrew": ["Hebrew"],
  "Noto Sans CJK SC": ["Simplified Chinese", "Japanese", "Korean", "Latin"],
  "Noto Sans CJK TC": ["Traditional Chinese", "Japanese", "Korean", "Latin"],
};

export const CANVAS_FORMATS = ["png", "jpeg", "webp"] as const;
export const TEXT_ALIGNMENTS = ["left", "center", "right"] as const;
/** Where the drawn lines sit in a box taller than they are; top when left out. */
export const TEXT_VERTICAL_ALIGNMENTS = ["top", "middle", "bottom"] as const;
export const PHOTO_FITS = ["cover", "contain"] as const;

export const DESIGN_LIMITS = {
  minCanvasSide: 16,
  maxCanvasSide: 4096,
  /** 8.4 megapixels: a 4096 × 2048 banner, or 2900². */
  maxCanvasPixels: 8_400_000,
  maxLayers: 24,
  /** Named variants beside the default layout. */
  maxVariants: 8,
  maxPhotoLayers: 1,
  maxTextLength: 500,
  minFontSize: 6,
  maxFontSize: 400,
  /** base64 characters of one embedded image (about 300 KB of PNG). */
  maxEmbeddedImageChars: 400_000,
  /** base64 characters of all embedded images together. */
  maxEmbeddedImagesChars: 800_000,
} as const;

/** `#rrggbb` or `#rrggbbaa`. */
export const COLOUR_PATTERN = /^#[0-9a-fA-F]{6}(?:[0-9a-fA-F]{2})?$/;
/** A layer's name: what a call's text and images refer to it by. */
export const DESIGN_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/**
 * A template's name: the same, but never shaped like a template id (tpl_…), so a reference by either
 * is one template, and never `fonts`, which /templates/fonts answers.
 */
export const TEMPLATE_NAME_PATTERN = /^(?!tpl_|fonts$)[a-z0-9][a-z0-9_-]{0,63}$/;
export const TEMPLATE_NAME_RULE = "must be 1 to 64 of a-z, 0-9, - and _, starting with a letter or digit, neither tpl_… nor fonts";

export interface DesignBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Canvas {
  readonly width: number;
  readonly height: number;
  readonly background: string;
  readonly format: (typeof CANVAS_FORMATS)[number];
}

export interface TextLayer {
  readonly type: "text";
  readonly name: string;
  readonly box: DesignBox;
  readonly font: TemplateFont;
  /** 400 regular, 700 bold. */
  readonly weight?: number;
  readonly color: string;
  readonly maxSize: number;
  readonly minSize: number;
  readonly align?: (typeof TEXT_ALIGNMENTS)[number];
  readonly valign?: (typeof TEXT_VERTICAL_ALIGNMENTS)[number];
  /** Line height as a multiple of the font size; default 1.2. */
  readonly lineHeight?: number;
  readonly text: string;
}

export interface ImageLayer {
  readonly type: "image";
  readonly name: string;
  readonly box: DesignBox;
  /** base64 of a raster image (no SVG); a call may replace it through `images`. */
  readonly image: string;
}

export interface PhotoLayer {
  readonly type: "photo";
  readonly name?: string;
  readonly box: DesignBox;
  readonly fit: (typeof PHOTO_FITS)[number];
}

export interface ShapeLayer {
  readonly type: "shape";
  readonly name?: string;
  readonly box: DesignBox;
  readonly fill: string;
}

export type Layer = TextLayer | ImageLayer | PhotoLayer | ShapeLayer;

/** One size of a design: a canvas and the layers drawn on it, bottom first. */
export interface DesignLayout {
  readonly canvas: Canvas;
  readonly layers: ReadonlyArray<Layer>;
}

/** The default layout, and named variants of it (other sizes: `og`, `story`), each its own canvas and boxes. */
export interface Design extends DesignLayout {
  readonly variants?: Readonly<Record<string, DesignLayout>>;
}

/** What `/generate`'s `variants` calls the default canvas and layers; no variant may take the name. */
export const DEFAULT_VARIANT = "default";

/** The layout a call names: the default, or a variant of the design; undefined if it has none of that name. */
export const layoutOf = (design: Design, variant: string): DesignLayout | undefined =>
  variant === DEFAULT_VARIANT ? design : Object.hasOwn(design.variants ?? {}, variant) ? design.variants![variant] : undefined;

export interface DesignIssue {
  readonly path: string;
  readonly message: string;
}

const canvasIssues = ({ width, height, background }: Canvas): ReadonlyArray<DesignIssue> => {
  const { minCanvasSide, maxCanvasSide, maxCanvasPixels } = DESIGN_LIMITS;
  const issues: Array<DesignIssue> = [];
  for (const [side, value] of [
    ["width", width],
    ["height", height],
  ] as const) {
    if (!Number.isInteger(value) || value < minCanvasSide || value > maxCanvasSide) {
      issues.push({ path: `canvas.${side}`, message: `must be a whole number from ${minCanvasSide} to ${maxCanvasSide}` });
    }
  }
  if (issues.length === 0 && width * height > maxCanvasPixels) {
    issues.push({ path: "canvas", message: `${width} × ${height} is over the limit of ${maxCanvasPixels} pixels` });
  }
  if (!COLOUR_PATTERN.test(background)) issues.push({ path: "canvas.background", message: "must be a colour #rrggbb or #rrggbbaa" });
  return issues;
};

const boxIssues = (box: DesignBox, canvas: Canvas, path: string): ReadonlyArray<DesignIssue> => {
  const whole = [box.x, box.y, box.width, box.height].every(Number.isInteger);
  if (!whole || box.width < 1 || box.height < 1) return [{ path, message: "x, y, width and height must be whole numbers, width and height at least 1" }];
  if (box.x < 0 || box.y < 0 || box.x + box.width > canvas.width || box.y + box.height > canvas.height) {
    return [{ path, message: `the box (${box.x}, ${box.y}, ${box.width} × ${box.height}) must lie inside the ${canvas.width} × ${canvas.height} canvas` }];
  }
  return [];
};

/** An emoji as a colour emoji font would draw it (a pictograph, a flag, a keycap, a sequence, a lone regional indicator); text symbols like © and ☺ are not. */
const EMOJI = /\p{RGI_Emoji}|\p{Emoji_Presentation}/gv;

/**
 * Text a layer can draw: no emoji, since no colour emoji font is installed and Pango would draw an
 * empty box in its place; each one found is named, with its code points.
 */
export const textContentIssues = (text: string, path: string): ReadonlyArray<DesignIssue> => {
  const found = [...new Set(text.match(EMOJI) ?? [])];
  if (found.length === 0) return [];
  const named = found
    .slice(0, 5)
    .map((emoji) => `"${emoji}" (${[...emoji].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ")})`);
  return [
    { path, message: `emoji are not drawn (no colour emoji font is installed): ${named.join(", ")}${found.length > 5 ? ` and ${found.length - 5} more` : ""}` },
  ];
};

const textIssues = (layer: TextLayer, path: string): ReadonlyArray<DesignIssue> => {
  const { minFontSize, maxFontSize, maxTextLength } = DESIGN_LIMITS;
  const issues: Array<DesignIssue> = [];
  if (!(TEMPLATE_FONTS as ReadonlyArray<string>).includes(layer.font)) {
    issues.push({ path: `${path}.font`, message: `unknown font; allowed: ${TEMPLATE_FONTS.join(", ")}` });
  }
  if (!COLOUR_PATTERN.test(layer.color)) issues.push({ path: `${path}.color`, message: "must be a colour #rrggbb or #rrggbbaa" });
  const sizes = [layer.minSize, layer.maxSize];
  if (!sizes.every((size) => Number.isInteger(size) && size >= minFontSize && size <= maxFontSize)) {
    issues.push({ path: `${path}.maxSize`, message: `minSize and maxSize must be whole numbers from ${minFontSize} to ${maxFontSize}` });
  } else if (layer.minSize > layer.maxSize) {
    issues.push({ path: `${path}.minSize`, message: "must not be larger than maxSize" });
  }
  if (layer.weight !== undefined && !(Number.isInteger(layer.weight) && layer.weight >= 100 && layer.weight <= 900)) {
    issues.push({ path: `${path}.weight`, message: "must be a whole number from 100 to 900 (400 regular, 700 bold)" });
  }
  if (layer.lineHeight !== undefined && !(layer.lineHeight >= 0.8 && layer.lineHeight <= 3)) {
    issues.push({ path: `${path}.lineHeight`, message: "must be from 0.8 to 3 (a multiple of the font size)" });
  }
  if (layer.text.length > maxTextLength) issues.push({ path: `${path}.text`, message: `${layer.text.length} characters; the limit is ${maxTextLength}` });
  issues.push(...textContentIssues(layer.text, `${path}.text`));
  return issues;
};

const layerIssues = (layer: Layer, canvas: Canvas, path: string): ReadonlyArray<DesignIssue> => {
  const box = boxIssues(layer.box, canvas, `${path}.box`);
  switch (layer.type) {
    case "text":
      return [...box, ...textIssues(layer, path)];
    case "shape":
      return COLOUR_PATTERN.test(layer.fill) ? box : [...box, { path: `${path}.fill`, message: "must be a colour #rrggbb or #rrggbbaa" }];
    case "image":
      return layer.image.length > DESIGN_LIMITS.maxEmbeddedImageChars
        ? [...box, { path: `${path}.image`, message: `${layer.image.length} base64 characters; the limit is ${DESIGN_LIMITS.maxEmbeddedImageChars}` }]
        : box;
    case "photo":
      return box;
  }
};

/** Every rule the design breaks, in its default layout and in each variant (checked alike), with where; none: it can be kept and rendered. */
export const designIssues = (design: Design): ReadonlyArray<DesignIssue> => {
  const variants = Object.entries(design.variants ?? {});
  const issues = [...layoutIssues(design)];
  if (variants.length > DESIGN_LIMITS.maxVariants)
    issues.push({ path: "variants", message: `${variants.length} variants; the limit is ${DESIGN_LIMITS.maxVariants}` });
  for (const [name, layout] of variants) {
    if (!DESIGN_NAME_PATTERN.test(name) || name === DEFAULT_VARIANT)
      issues.push({ path: `variants.${name}`, message: `a variant's name must be 1 to 64 of a-z, 0-9, - and _, and not ${DEFAULT_VARIANT}` });
    issues.push(...layoutIssues(layout).map((issue) => ({ ...issue, path: `variants.${name}.${issue.path}` })));
  }
  const embedded = [design, ...variants.map(([, layout]) => layout)]
    .flatMap((layout) => layout.layers)
    .reduce((sum, layer) => sum + (layer.type === "image" ? layer.image.length : 0), 0);
  if (variants.length > 0 && embedded > DESIGN_LIMITS.maxEmbeddedImagesChars) {
    issues.push({ path: "variants", message: `embedded images of ${embedded} base64 characters in all; the limit is ${DESIGN_LIMITS.maxEmbeddedImagesChars}` });
  }
  return issues;
};

const layoutIssues = (layout: DesignLayout): ReadonlyArray<DesignIssue> => {
  const { canvas, layers } = layout;
  const issues: Array<DesignIssue> = [...canvasIssues(canvas)];
  // Only a canvas that is itself valid can hold a box to check.
  const bounds = issues.length === 0 ? canvas : { ...canvas, width: Infinity, height: Infinity };
  if (layers.length === 0 || layers.length > DESIGN_LIMITS.maxLayers) {
    issues.push({ path: "layers", message: `${layers.length} layers; a design has 1 to ${DESIGN_LIMITS.maxLayers}` });
  }
  if (layers.filter((layer) => layer.type === "photo").length > DESIGN_LIMITS.maxPhotoLayers) {
    issues.push({ path: "layers", message: `at most ${DESIGN_LIMITS.maxPhotoLayers} photo layer: the request's image fills it` });
  }
  const embedded = layers.reduce((sum, layer) => sum + (layer.type === "image" ? layer.image.length : 0), 0);
  if (embedded > DESIGN_LIMITS.maxEmbeddedImagesChars) {
    issues.push({ path: "layers", message: `embedded images of ${embedded} base64 characters; the limit is ${DESIGN_LIMITS.maxEmbeddedImagesChars}` });
  }
  const names = new Set<string>();
  layers.forEach((layer, index) => {
    const path = `layers.${index}`;
    if (layer.name !== undefined) {
      if (!DESIGN_NAME_PATTERN.test(layer.name))
        issues.push({ path: `${path}.name`, message: "must be 1 to 64 of a-z, 0-9, - and _, starting with a letter or digit" });
      else if (names.has(layer.name)) issues.push({ path: `${path}.name`, message: `another layer is named ${layer.name}` });
      names.add(layer.name);
    }
    issues.push(...layerIssues(layer, bounds, path));
  });
  return issues;
};
