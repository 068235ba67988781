import { describe, expect, it } from "vitest";
import { claimedScripts, drawingFamily, FAMILY_ALIASES, SCRIPT_SAMPLES } from "../../src/adapters/image/fonts/shipped-font-families.ts";

describe("the shipped font families", () => {
  it("have a start-check sample for every script a family claims", () => {
    for (const { family, scripts } of claimedScripts()) for (const script of scripts) expect(SCRIPT_SAMPLES, `${family}: ${script}`).toHaveProperty([script]);
  });

  it("check each script of an alias against the member whose files draw it: Hangul from Noto Sans KR, the rest from the first", () => {
    expect(drawingFamily("Noto Sans CJK SC", "Korean")).toBe("Noto Sans KR");
    expect(drawingFamily("Noto Sans CJK TC", "Japanese")).toBe("Noto Sans TC");
    expect(drawingFamily("Noto Sans CJK SC", "Simplified Chinese")).toBe("Noto Sans SC");
    expect(drawingFamily("Noto Serif", "Latin")).toBe("Noto Serif");
    for (const members of Object.values(FAMILY_ALIASES)) expect(members.at(-1)).toBe("Noto Sans KR");
  });
});
