import { define, inside, PAID_PLANS } from "./define-template.ts";
import type { Template } from "./template.ts";

export const BACKGROUND_TEMPLATES: ReadonlyArray<Template> = [
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
