import { cover, define, inside } from "./define-template.ts";
import type { Template } from "./template.ts";

export const THUMBNAIL_TEMPLATES: ReadonlyArray<Template> = [
  define("thumbnail", "small", "150×150 square thumbnail (JPEG)", "jpeg", 80, [cover(150, 150)]),
  define("thumbnail", "medium", "320×320 square thumbnail (WebP)", "webp", 80, [cover(320, 320)]),
  define("thumbnail", "large", "640×640 square thumbnail (WebP)", "webp", 82, [cover(640, 640)]),
  define("thumbnail", "preview-avif", "Preview within 640×640, aspect kept (AVIF)", "avif", 55, [inside(640, 640)]),
];
