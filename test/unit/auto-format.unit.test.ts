import { describe, expect, it } from "vitest";
import { addsTransparency, autoFormatOutput, autoFormatRefusal, canvasAutoFormatRefusal } from "../../src/domain/auto-format.ts";
import { type Template } from "../../src/domain/template-catalog/template.ts";
import { findTemplate, TEMPLATES } from "../../src/domain/template-catalog/template-catalog.ts";

const template = (type: string, name: string): Template => {
  const lookup = findTemplate(type, name);
  if (!lookup.found) throw new Error(`no ${type}/${name}`);
  return lookup.template;
};

describe('format "auto" on /generate', () => {
  it("is refused by templates that leave transparent pixels or make a lossless PNG, and taken by the others", () => {
    expect(autoFormatRefusal(template("avatar", "circle-webp"))).toContain("transparent WEBP");
    expect(autoFormatRefusal(template("background", "remove"))).toContain("transparent PNG");
    expect(autoFormatRefusal(template("format", "png"))).toContain("lossless PNG");
    for (const [type, name] of [
      ["thumbnail", "medium"],
      ["thumbnail", "preview-avif"],
      ["format", "webp"],
      ["social", "instagram-square"],
      ["background", "white-square"],
    ] as const)
      expect(autoFormatRefusal(template(type, name)), `${type}/${name}`).toBeUndefined();
    // Every PNG of the catalog is refused, every JPEG taken.
    for (const t of TEMPLATES) {
      if (t.output.format === "png") expect(autoFormatRefusal(t)).toBeDefined();
      if (t.output.format === "jpeg") expect(autoFormatRefusal(t)).toBeUndefined();
    }
  });

  it("reads transparency from the steps: cut-outs, rounded corners, shadows and unpadded contain add it, a flatten removes it", () => {
    expect(addsTransparency([{ op: "cutout" }])).toBe(true);
    expect(addsTransparency([{ op: "cutout" }, { op: "flatten", colour: "#ffffff" }])).toBe(false);
    expect(addsTransparency([{ op: "resize", width: 10, height: 10, fit: "contain" }])).toBe(true);
    expect(addsTransparency([{ op: "resize", width: 10, height: 10, fit: "contain", background: "#000000" }])).toBe(false);
    expect(
      addsTransparency([
        { op: "resize", width: 10, height: 10, fit: "cover" },
        { op: "sharpen", sigma: 1 },
      ]),
    ).toBe(false);
  });

  it("keeps an auto result as a JPEG at the size of the template, at a JPEG template's own quality or format/jpeg's", () => {
    const medium = template("thumbnail", "medium");
    expect(autoFormatOutput(medium.output)).toEqual({ ...medium.output, format: "jpeg", quality: template("format", "jpeg").output.quality });
    const square = template("social", "instagram-square");
    expect(autoFormatOutput(square.output)).toBe(square.output);
  });

  it("takes an account design's canvas unless it is a PNG or its background is transparent", () => {
    expect(canvasAutoFormatRefusal({ format: "webp", background: "#112233" })).toBeUndefined();
    expect(canvasAutoFormatRefusal({ format: "jpeg", background: "#112233FF" })).toBeUndefined();
    expect(canvasAutoFormatRefusal({ format: "webp", background: "#11223380" })).toContain("transparent");
    expect(canvasAutoFormatRefusal({ format: "png", background: "#ffffff" })).toContain("PNG");
  });
});
