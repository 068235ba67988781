import type { Design, Layer } from "./account-template-design.ts";

/**
 * The launch card of issue 27, the one copy of it: a photo on the left, a headline beside it, a logo
 * and a rule below. The console offers it, without a logo, as the start of a new template (valid as
 * it stands); the worked example of docs/account-templates.md and the tests make it with one.
 */
export const launchCardDesign = ({
  name = "launch-card",
  background = "#0b1f3a",
  logo,
}: {
  readonly name?: string;
  readonly background?: string | undefined;
  /** base64 of the logo's picture; without it the design has no logo layer. */
  readonly logo?: string;
} = {}): { readonly name: string } & Design => ({
  name,
  canvas: { width: 1200, height: 630, background, format: "png" },
  layers: [
    { type: "photo", box: { x: 0, y: 0, width: 600, height: 630 }, fit: "cover" },
    {
      type: "text",
      name: "title",
      box: { x: 640, y: 80, width: 520, height: 260 },
      font: "Noto Sans",
      weight: 700,
      color: "#ffffff",
      maxSize: 96,
      minSize: 20,
      align: "left",
      text: "Default headline",
    },
    ...(logo === undefined ? [] : [{ type: "image", name: "logo", box: { x: 1040, y: 520, width: 120, height: 80 }, image: logo } satisfies Layer]),
    { type: "shape", box: { x: 620, y: 600, width: 560, height: 6 }, fill: "#ffcc00" },
  ],
});
