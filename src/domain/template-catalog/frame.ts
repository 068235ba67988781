import { cover, define, inside, margin } from "./define-template.ts";
import type { Template } from "./template.ts";

export const FRAME_TEMPLATES: ReadonlyArray<Template> = [
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
];
