import { cover, define } from "./define-template.ts";
import type { Template } from "./template.ts";

export const AVATAR_TEMPLATES: ReadonlyArray<Template> = [
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
];
