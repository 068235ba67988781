import type { Design, Layer } from "./account-template-design.ts";

/** What the photo layer shows in a preview, which has no photo: a neutral grey the designer sees the box by. */
export const PREVIEW_PHOTO_FILL = "#8a94a0";
export const PREVIEW_MARK = "PREVIEW";

/**
 * The design as the console previews it: the photo layer drawn as a grey box, and a band marked
 * PREVIEW across the bottom on top of every layer. Previews cost the account nothing (no quota, no
 * result kept), so they are marked: a preview is never a free rendering to use instead of /generate.
 */
export const previewDesign = (design: Design): Design => {
  const { width, height } = design.canvas;
  const bandHeight = Math.max(12, Math.round(height / 8));
  const mark: Layer = {
    type: "text",
    name: "console-preview-mark",
    box: { x: 0, y: height - bandHeight, width, height: bandHeight },
    font: "DejaVu Sans",
    weight: 700,
    color: "#ffffffcc",
    maxSize: Math.max(6, Math.min(400, Math.round(bandHeight * 0.7))),
    minSize: 6,
    align: "center",
    text: PREVIEW_MARK,
  };
  const band: Layer = { type: "shape", box: mark.box, fill: "#000000a0" };
  const layers = design.layers.map((layer): Layer => (layer.type === "photo" ? { type: "shape", box: layer.box, fill: PREVIEW_PHOTO_FILL } : layer));
  return { canvas: design.canvas, layers: [...layers, band, mark] };
};
