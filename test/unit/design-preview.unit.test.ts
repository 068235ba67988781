import { describe, expect, it } from "vitest";
import { type Design, designIssues } from "../../src/domain/account-templates/account-template-design.ts";
import { PREVIEW_MARK, PREVIEW_PHOTO_FILL, previewDesign } from "../../src/domain/account-templates/design-preview.ts";

const design = (width: number, height: number): Design => ({
  canvas: { width, height, background: "#0b1f3a", format: "png" },
  layers: [
    { type: "photo", box: { x: 0, y: 0, width: Math.floor(width / 2), height }, fit: "cover" },
    {
      type: "text",
      name: "title",
      box: { x: 0, y: 0, width, height: Math.floor(height / 2) },
      font: "Noto Sans",
      color: "#ffffff",
      maxSize: 40,
      minSize: 6,
      text: "Hi",
    },
  ],
});

describe("the console's preview of a design", () => {
  it.each([
    [1200, 630],
    [16, 16],
    [4096, 2048],
    [1080, 1920],
  ])("at %i × %i: the photo a grey box, the PREVIEW band last, every rule of a kept design still held", (width, height) => {
    const original = design(width, height);
    const preview = previewDesign(original);
    expect(preview.canvas).toEqual(original.canvas);
    expect(preview.layers[0]).toEqual({ type: "shape", box: original.layers[0]!.box, fill: PREVIEW_PHOTO_FILL });
    expect(preview.layers[1]).toBe(original.layers[1]);
    const mark = preview.layers.at(-1)!;
    expect(mark).toMatchObject({ type: "text", text: PREVIEW_MARK, box: { x: 0, width } });
    expect(mark.box.y + mark.box.height).toBe(height);
    expect(designIssues(preview)).toEqual([]);
  });
});
