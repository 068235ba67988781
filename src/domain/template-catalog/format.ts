import { define, inside } from "./define-template.ts";
import type { Template } from "./template.ts";

export const FORMAT_TEMPLATES: ReadonlyArray<Template> = [
  define("format", "webp", "Converts to WebP, within 4096×4096", "webp", 82, [inside(4096, 4096)]),
  define("format", "avif", "Converts to AVIF, within 4096×4096", "avif", 55, [inside(4096, 4096)]),
  define("format", "jpeg", "Converts to JPEG, within 4096×4096", "jpeg", 88, [inside(4096, 4096)]),
  define("format", "png", "Converts to lossless PNG, within 4096×4096", "png", 100, [inside(4096, 4096)]),
];
