import { contrast, define, inside } from "./define-template.ts";
import type { Row3, Template, TemplateStep } from "./template.ts";

/** Colour and tone looks on the photo as it is, within 2048 pixels. */
const filter = (template: string, description: string, steps: ReadonlyArray<TemplateStep>): Template =>
  define("filter", template, description, "jpeg", 90, [inside(2048, 2048), ...steps]);

const SEPIA: readonly [Row3, Row3, Row3] = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

export const FILTER_TEMPLATES: ReadonlyArray<Template> = [
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
];
