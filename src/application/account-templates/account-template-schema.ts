import { Schema } from "effect";
import {
  CANVAS_FORMATS,
  DEFAULT_VARIANT,
  type Design,
  DESIGN_LIMITS,
  PHOTO_FITS,
  TEMPLATE_FONTS,
  TEXT_ALIGNMENTS,
  TEXT_VERTICAL_ALIGNMENTS,
} from "../../domain/account-templates/account-template-design.ts";

/**
 * The shape of a design (domain/template-design.ts), as a body carries it and as its events store
 * it. Fields are typed here; the rules that compare them or bound them (a box inside the canvas,
 * sizes, lengths, colours) are the domain's designIssues, which answers with every detail at once.
 */
const oneOf = <const Values extends readonly [string, ...Array<string>]>(values: Values) =>
  Schema.Literals(values).annotate({ message: `must be one of ${values.join(", ")}` });

const Pixels = Schema.Finite.annotate({ description: "pixels, a whole number" });
const Colour = Schema.String.annotate({ identifier: "DesignColour", description: "#rrggbb or #rrggbbaa", examples: ["#0b1f3a"] });
const LayerName = Schema.String.annotate({ identifier: "LayerName", description: "a-z, 0-9, - and _; what a call's text or images refer to" });

const Box = Schema.Struct({ x: Pixels, y: Pixels, width: Pixels, height: Pixels }).annotate({
  identifier: "DesignBox",
  description: "in canvas pixels; must lie inside the canvas",
});

const Canvas = Schema.Struct({
  width: Pixels,
  height: Pixels,
  background: Colour,
  format: oneOf(CANVAS_FORMATS),
}).annotate({
  identifier: "DesignCanvas",
  description: `${DESIGN_LIMITS.minCanvasSide} to ${DESIGN_LIMITS.maxCanvasSide} pixels a side, ${DESIGN_LIMITS.maxCanvasPixels} pixels at most`,
});

const TextLayer = Schema.Struct({
  type: Schema.Literal("text"),
  name: LayerName,
  box: Box,
  font: oneOf(TEMPLATE_FONTS),
  weight: Schema.optionalKey(Schema.Finite.annotate({ description: "400 regular, 700 bold" })),
  color: Colour,
  maxSize: Pixels,
  minSize: Pixels,
  align: Schema.optionalKey(oneOf(TEXT_ALIGNMENTS)),
  valign: Schema.optionalKey(oneOf(TEXT_VERTICAL_ALIGNMENTS).annotate({ description: "where the lines sit in the box; default top" })),
  lineHeight: Schema.optionalKey(Schema.Finite.annotate({ description: "a multiple of the font size, 0.8 to 3; default 1.2" })),
  text: Schema.String.annotate({
    description: `${DESIGN_LIMITS.maxTextLength} characters at most, no emoji (refused, naming each: no colour emoji font is installed); a call's text.<name> replaces it`,
  }),
}).annotate({
  identifier: "TextLayer",
  description: `wrapped at word boundaries, shrunk from maxSize to minSize (${DESIGN_LIMITS.minFontSize} to ${DESIGN_LIMITS.maxFontSize}) until it fits its box, then cut with an ellipsis`,
});

const ImageLayer = Schema.Struct({
  type: Schema.Literal("image"),
  name: LayerName,
  box: Box,
  image: Schema.String.annotate({ description: "base64 of a PNG, JPEG or WebP (no SVG), fitted inside the box; a call's images.<name> replaces it" }),
}).annotate({ identifier: "ImageLayer" });

const PhotoLayer = Schema.Struct({
  type: Schema.Literal("photo"),
  name: Schema.optionalKey(LayerName),
  box: Box,
  fit: oneOf(PHOTO_FITS),
}).annotate({ identifier: "PhotoLayer", description: "filled from the call's image; cover crops around faces (the focus rule of /generate)" });

const ShapeLayer = Schema.Struct({
  type: Schema.Literal("shape"),
  name: Schema.optionalKey(LayerName),
  box: Box,
  fill: Colour,
}).annotate({ identifier: "ShapeLayer", description: "a filled rectangle" });

const Layer = Schema.Union([TextLayer, ImageLayer, PhotoLayer, ShapeLayer]).annotate({
  identifier: "DesignLayer",
  message: "must be a text, image, photo or shape layer",
});

const LayoutFields = {
  canvas: Canvas,
  layers: Schema.Array(Layer).annotate({ description: `drawn in order, the first at the bottom; 1 to ${DESIGN_LIMITS.maxLayers}` }),
};

const Variant = Schema.Struct(LayoutFields).annotate({
  identifier: "DesignVariant",
  description: "another size of the design: its own canvas and layers, checked like the default ones",
});

/** The fields of a design, for bodies that carry one beside fields of their own. */
export const DesignFields = {
  ...LayoutFields,
  variants: Schema.optionalKey(
    Schema.Record(Schema.String, Variant).annotate({
      identifier: "DesignVariants",
      description:
        `named variants beside the default canvas and layers (e.g. og, square, story), ${DESIGN_LIMITS.maxVariants} at most; ` +
        `/generate draws them by name in variants, the default layout as ${DEFAULT_VARIANT}`,
    }),
  ),
};

export const DesignSchema: Schema.Codec<Design, Design> = Schema.Struct(DesignFields).annotate({ identifier: "Design" });
