import { describe, expect, it } from "vitest";
import { needsPersonMask, outputBox } from "../../src/domain/template-catalog/template.ts";
import { findTemplate, TEMPLATES, templateTypes } from "../../src/domain/template-catalog/template-catalog.ts";

describe("the template catalog", () => {
  it("offers at least 30 templates in at least 7 types", () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(30);
    expect(templateTypes()).toEqual(expect.arrayContaining(["social", "avatar", "filter", "enhance", "frame", "thumbnail", "format", "background"]));
  });

  it("names each template once within its type, in URL-safe lower case", () => {
    const keys = TEMPLATES.map((t) => `${t.templateType}/${t.template}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[a-z]+\/[a-z0-9-]+$/);
  });

  it.each(TEMPLATES.map((t) => [`${t.templateType}/${t.template}`, t] as const))("%s is described completely", (_key, t) => {
    expect(t.description.length).toBeGreaterThan(10);
    expect(t.plans.length).toBeGreaterThan(0);
    expect(t.output.quality).toBeGreaterThanOrEqual(1);
    expect(t.output.quality).toBeLessThanOrEqual(100);
    expect(t.output).toMatchObject(outputBox(t.steps) ?? {});
  });

  it("keeps background templates, the ones that need a person mask, to the paid plans", () => {
    for (const t of TEMPLATES) {
      expect(needsPersonMask(t)).toBe(t.templateType === "background");
      if (needsPersonMask(t)) expect([...t.plans].sort()).toEqual(["enterprise", "pro"]);
      else expect(t.plans).toContain("free");
    }
  });

  it("says where the box comes from: the last resize, plus the margins added after it", () => {
    expect(
      outputBox([
        { op: "resize", width: 100, height: 50, fit: "cover" },
        { op: "extend", top: 1, right: 2, bottom: 3, left: 4, colour: "#fff" },
        { op: "dropShadow", margin: 10, blur: 1, offset: 1, opacity: 1 },
      ]),
    ).toEqual({ width: 126, height: 74, fit: "cover" });
    expect(outputBox([{ op: "grayscale" }])).toBeUndefined();
  });
});

describe("findTemplate", () => {
  it("finds a template by type and name", () => {
    const found = findTemplate("avatar", "circle");
    expect(found.found && found.template.output).toMatchObject({ width: 400, height: 400, format: "png" });
  });

  it("lists the known types when the type is unknown", () => {
    expect(findTemplate("nope", "circle")).toEqual({ found: false, field: "templateType", allowed: templateTypes() });
  });

  it("lists the type's templates when the name is unknown", () => {
    const lookup = findTemplate("avatar", "hexagon");
    expect(lookup).toMatchObject({ found: false, field: "template" });
    expect(!lookup.found && lookup.allowed).toEqual(["square", "square-large", "circle", "circle-webp", "rounded"]);
  });
});
