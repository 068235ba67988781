import { describe, expect, it } from "vitest";
import type { Design, Layer } from "../../src/domain/account-templates/account-template-design.ts";
import { launchCardDesign } from "../../src/domain/account-templates/launch-card.ts";
import { unavailableFontIssues } from "../../src/domain/account-templates/unavailable-fonts.ts";

const launchCard = launchCardDesign();
const text = launchCard.layers.find((layer) => layer.type === "text")!;
const withFont = (font: string): Layer => ({ ...text, font }) as Layer;

describe("a design naming a family the service cannot draw now", () => {
  it("is refused at each text layer naming it, in the default layout and in every variant", () => {
    const design: Design = {
      ...launchCard,
      layers: [...launchCard.layers, withFont("Noto Sans CJK SC")],
      variants: { story: { canvas: launchCard.canvas, layers: [withFont("Noto Sans CJK SC")] } },
    };
    const issues = unavailableFontIssues(design, new Set(["Noto Sans", "DejaVu Sans"]));
    expect(issues.map(({ path }) => path)).toEqual([`layers.${launchCard.layers.length}.font`, "variants.story.layers.0.font"]);
    expect(issues[0]!.message).toBe('"Noto Sans CJK SC" is not available on this service now; available: Noto Sans, DejaVu Sans');
  });

  it("passes a design whose families are all available, and leaves an unknown name to the design rules' own issue", () => {
    expect(unavailableFontIssues(launchCard, new Set(["Noto Sans"]))).toEqual([]);
    expect(unavailableFontIssues({ ...launchCard, layers: [withFont("Comic Sans")] }, new Set(["Noto Sans"]))).toEqual([]);
  });
});
