import { define, inside } from "./define-template.ts";
import type { Template, TemplateStep } from "./template.ts";

/** Corrections that keep the photo's size, within 4096 pixels. */
const enhance = (template: string, description: string, steps: ReadonlyArray<TemplateStep>): Template =>
  define("enhance", template, description, "jpeg", 92, [inside(4096, 4096), ...steps]);

export const ENHANCE_TEMPLATES: ReadonlyArray<Template> = [
  enhance("auto-level", "Stretches the tones so that the darkest 1% is black and the brightest 1% white", [{ op: "normalise", lower: 1, upper: 99 }]),
  // Adaptive equalisation costs about a second per megapixel here: this one is capped at 1600 pixels.
  define("enhance", "local-contrast", "Brings out detail in shadows and highlights (adaptive equalisation), within 1600×1600", "jpeg", 92, [
    inside(1600, 1600),
    { op: "clahe", tile: 16, maxSlope: 3 },
  ]),
  enhance("sharpen", "Crisper edges and fine detail", [{ op: "sharpen", sigma: 1.2 }]),
  enhance("denoise", "Removes speckle noise while keeping edges", [{ op: "median", size: 3 }]),
  enhance("brighten", "Brighter exposure for dark photos", [{ op: "modulate", brightness: 1.25 }]),
];
