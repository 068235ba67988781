import { describe, expect, it } from "vitest";
import { DEFAULT_TRYON_SETTINGS, resolveTryOnSettings, TRYON_SETTING_DESCRIPTIONS, TRYON_SETTING_VALUES } from "../../src/domain/tryon-settings.ts";

describe("try-on settings", () => {
  it("fills every field with its default when settings are absent or empty", () => {
    expect(resolveTryOnSettings(undefined)).toEqual({ ok: true, settings: DEFAULT_TRYON_SETTINGS });
    expect(resolveTryOnSettings({})).toEqual({ ok: true, settings: DEFAULT_TRYON_SETTINGS });
    expect(DEFAULT_TRYON_SETTINGS).toEqual({
      poseStyle: "original",
      lightingStyle: "original",
      fitPreference: "regular",
      backgroundStyle: "original",
      realismLevel: "standard",
    });
  });

  it("keeps the given values and defaults the rest", () => {
    expect(resolveTryOnSettings({ fitPreference: "loose", backgroundStyle: "white" })).toEqual({
      ok: true,
      settings: { ...DEFAULT_TRYON_SETTINGS, fitPreference: "loose", backgroundStyle: "white" },
    });
  });

  it("accepts every listed value of every field", () => {
    for (const [name, values] of Object.entries(TRYON_SETTING_VALUES)) {
      for (const value of values) expect(resolveTryOnSettings({ [name]: value }).ok).toBe(true);
    }
  });

  it("names the field and the allowed values for an unknown value", () => {
    const result = resolveTryOnSettings({ poseStyle: "dancing", lightingStyle: "neon" });
    expect(result).toEqual({
      ok: false,
      problems: [
        { path: "settings.poseStyle", message: '"dancing" is not allowed; allowed values: original, mirrored' },
        { path: "settings.lightingStyle", message: '"neon" is not allowed; allowed values: original, studio, warm, cool, dramatic' },
      ],
    });
  });

  it("refuses values that are not strings, unknown fields, and settings that are not an object", () => {
    expect(resolveTryOnSettings({ realismLevel: 3 })).toMatchObject({ ok: false, problems: [{ path: "settings.realismLevel" }] });
    expect(resolveTryOnSettings({ colour: "red" })).toEqual({
      ok: false,
      problems: [
        { path: "settings.colour", message: "unknown setting; allowed settings: poseStyle, lightingStyle, fitPreference, backgroundStyle, realismLevel" },
      ],
    });
    expect(resolveTryOnSettings("loose")).toEqual({ ok: false, problems: [{ path: "settings", message: "settings must be an object" }] });
    expect(resolveTryOnSettings(["loose"]).ok).toBe(false);
  });

  it("describes every allowed value", () => {
    for (const [name, values] of Object.entries(TRYON_SETTING_VALUES)) {
      expect(Object.keys(TRYON_SETTING_DESCRIPTIONS[name as keyof typeof TRYON_SETTING_VALUES]).sort()).toEqual([...values].sort());
    }
  });
});
