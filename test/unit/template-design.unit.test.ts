import { describe, expect, it } from "vitest";
import {
  type Design,
  DESIGN_LIMITS,
  designIssues,
  type Layer,
  type TemplateFont,
  textContentIssues,
} from "../../src/domain/account-templates/account-template-design.ts";
import { launchCardDesign } from "../../src/domain/account-templates/launch-card.ts";

/** The issue's launch card (src/domain/account-templates/launch-card.ts), with a logo; its canvas and headline are the parts the rules below bend. */
const launchCard = launchCardDesign({ logo: "iVBORw0KGgo=" });
const { canvas } = launchCard;
const text: Layer = launchCard.layers.find((layer) => layer.type === "text")!;
const paths = (design: Design) => designIssues(design).map(({ path }) => path);

describe("template design rules", () => {
  it("accepts the issue's launch card, with its logo and without (the console's sample)", () => {
    expect(launchCard.layers.map(({ type }) => type)).toEqual(["photo", "text", "image", "shape"]);
    expect(designIssues(launchCard)).toEqual([]);
    expect(launchCardDesign().layers.map(({ type }) => type)).toEqual(["photo", "text", "shape"]);
    expect(designIssues(launchCardDesign())).toEqual([]);
  });

  it("refuses a box outside the canvas, naming the layer", () => {
    const issues = designIssues({ canvas, layers: [{ ...text, box: { x: 1000, y: 0, width: 300, height: 10 } }] });
    expect(issues).toEqual([{ path: "layers.0.box", message: expect.stringContaining("inside the 1200 × 630 canvas") }]);
    expect(paths({ canvas, layers: [{ ...text, box: { x: -1, y: 0, width: 10, height: 10 } }] })).toEqual(["layers.0.box"]);
    expect(paths({ canvas, layers: [{ ...text, box: { x: 0, y: 0, width: 0, height: 10 } }] })).toEqual(["layers.0.box"]);
  });

  it("bounds the canvas: each side and the pixels", () => {
    expect(paths({ canvas: { ...canvas, width: 8000 }, layers: [text] })).toEqual(["canvas.width"]);
    expect(paths({ canvas: { ...canvas, width: 4096, height: 4096 }, layers: [text] })).toEqual(["canvas"]);
    expect(paths({ canvas: { ...canvas, background: "navy" }, layers: [text] })).toEqual(["canvas.background"]);
  });

  it("bounds text: its length, its sizes in order, a known font, a colour", () => {
    const long = "x".repeat(DESIGN_LIMITS.maxTextLength + 1);
    expect(paths({ canvas, layers: [{ ...text, text: long }] })).toEqual(["layers.0.text"]);
    expect(paths({ canvas, layers: [{ ...text, minSize: 100 }] })).toEqual(["layers.0.minSize"]);
    expect(paths({ canvas, layers: [{ ...text, maxSize: 1000 }] })).toEqual(["layers.0.maxSize"]);
    expect(paths({ canvas, layers: [{ ...text, font: "Comic Sans" as TemplateFont }] })).toEqual(["layers.0.font"]);
    expect(paths({ canvas, layers: [{ ...text, color: "#fff" }] })).toEqual(["layers.0.color"]);
  });

  it("refuses emoji, naming each with its code points; keeps text symbols, Arabic, Hebrew and CJK", () => {
    expect(textContentIssues("Launch 🎉 and 👍🏽 today 🎉", "text.title")).toEqual([
      { path: "text.title", message: 'emoji are not drawn (no colour emoji font is installed): "🎉" (U+1F389), "👍🏽" (U+1F44D U+1F3FD)' },
    ]);
    expect(textContentIssues("flag 🇫🇷, keycap 1️⃣, lone 🇦", "t")[0]?.message).toContain('"🇫🇷" (U+1F1EB U+1F1F7), "1️⃣" (U+0031 U+FE0F U+20E3), "🇦" (U+1F1E6)');
    expect(textContentIssues("© ® ™ ☺ ★ ✓ ❤ — مرحبا שלום 繁體 简体", "t")).toEqual([]);
    expect(paths({ canvas, layers: [{ ...text, text: "Hi 🚀" }] })).toEqual(["layers.0.text"]);
  });

  it("checks each variant like the default layout, its paths under variants.<name>; the name default is the default's", () => {
    const story: Design["canvas"] = { width: 1080, height: 1920, background: "#000000", format: "png" };
    const tall = { ...text, box: { x: 40, y: 1500, width: 1000, height: 300 } };
    expect(designIssues({ canvas, layers: [text], variants: { story: { canvas: story, layers: [tall] } } })).toEqual([]);
    // The default's box lies outside the story canvas's height only in the variant that uses it.
    expect(paths({ canvas, layers: [text], variants: { story: { canvas: story, layers: [tall] }, og: { canvas, layers: [tall] } } })).toEqual([
      "variants.og.layers.0.box",
    ]);
    expect(paths({ canvas, layers: [text], variants: { default: { canvas, layers: [text] } } })).toEqual(["variants.default"]);
    expect(paths({ canvas, layers: [text], variants: { story: { canvas: { ...story, width: 9000 }, layers: [{ ...text, text: "🎉" }] } } })).toEqual([
      "variants.story.canvas.width",
      "variants.story.layers.0.text",
    ]);
    const many = Object.fromEntries([...Array(DESIGN_LIMITS.maxVariants + 1).keys()].map((i) => [`v${i}`, { canvas, layers: [text] }]));
    expect(paths({ canvas, layers: [text], variants: many })).toEqual(["variants"]);
  });

  it("takes a vertical alignment and a line height within bounds", () => {
    for (const valign of ["top", "middle", "bottom"] as const) expect(designIssues({ canvas, layers: [{ ...text, valign, lineHeight: 1.5 }] })).toEqual([]);
    expect(paths({ canvas, layers: [{ ...text, lineHeight: 5 }] })).toEqual(["layers.0.lineHeight"]);
  });

  it("bounds layers: how many, one photo, unique names, embedded image sizes", () => {
    expect(paths({ canvas, layers: [] })).toEqual(["layers"]);
    const photo: Layer = { type: "photo", box: { x: 0, y: 0, width: 10, height: 10 }, fit: "cover" };
    expect(paths({ canvas, layers: [photo, photo] })).toEqual(["layers"]);
    expect(paths({ canvas, layers: [text, text] })).toEqual(["layers.1.name"]);
    const big: Layer = { type: "image", name: "logo", box: { x: 0, y: 0, width: 10, height: 10 }, image: "A".repeat(DESIGN_LIMITS.maxEmbeddedImageChars + 4) };
    expect(paths({ canvas, layers: [big] })).toEqual(["layers.0.image"]);
  });
});
