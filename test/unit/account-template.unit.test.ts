import { describe, expect, it } from "vitest";
import { accountTemplateDecider, type AccountTemplateEvent, findAccountTemplate } from "../../src/domain/account-templates/account-template.ts";
import type { Design } from "../../src/domain/account-templates/account-template-design.ts";
import { PLANS } from "../../src/domain/plan.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const spec = deciderSpec(accountTemplateDecider);
const now = new Date("2026-11-26T10:00:00.000Z");
const at = now.toISOString();
const design: Design = {
  canvas: { width: 1200, height: 630, background: "#0b1f3a", format: "png" },
  layers: [
    { type: "photo", box: { x: 0, y: 0, width: 600, height: 630 }, fit: "cover" },
    { type: "text", name: "title", box: { x: 640, y: 80, width: 520, height: 260 }, font: "Noto Sans", color: "#ffffff", maxSize: 96, minSize: 20, text: "Hi" },
    { type: "shape", box: { x: 620, y: 600, width: 560, height: 6 }, fill: "#ffcc00" },
  ],
};
const revisedDesign: Design = { ...design, canvas: { ...design.canvas, background: "#000000" } };
const create = (templateId: string, name: string, limit: number | null = 3) =>
  ({ type: "CreateTemplate", accountId: "acc_1", templateId, name, design, limit, now }) as const;
const created = (templateId: string, name: string): AccountTemplateEvent => ({
  type: "TemplateCreated",
  data: { accountId: "acc_1", templateId, name, version: 1, design, at },
});

describe("account templates", () => {
  it("creates a template at version 1, up to the plan's count", () => {
    spec
      .given([])
      .when(create("t1", "launch-card"))
      .then([created("t1", "launch-card")]);
    const three = [created("t1", "a"), created("t2", "b"), created("t3", "c")];
    spec
      .given(three)
      .when(create("t4", "d", PLANS.free.accountTemplates))
      .thenRejects("TEMPLATE_LIMIT_REACHED");
    spec
      .given(three)
      .when(create("t4", "d", PLANS.enterprise.accountTemplates))
      .then([created("t4", "d")]);
  });

  it("states the plans' limits as data: free 3, pro 50, enterprise unlimited", () => {
    expect([PLANS.free.accountTemplates, PLANS.pro.accountTemplates, PLANS.enterprise.accountTemplates]).toEqual([3, 50, null]);
  });

  it("keeps names unique within the account and never reuses an id", () => {
    spec
      .given([created("t1", "a")])
      .when(create("t2", "a"))
      .thenRejects("TEMPLATE_NAME_TAKEN");
    const deleted: AccountTemplateEvent = { type: "TemplateDeleted", data: { accountId: "acc_1", templateId: "t1", name: "a", version: 1, at } };
    spec
      .given([created("t1", "a"), deleted])
      .when(create("t2", "a"))
      .then([created("t2", "a")]);
    spec
      .given([created("t1", "a"), deleted])
      .when(create("t1", "b"))
      .thenRejects("TEMPLATE_EXISTS");
  });

  it("a deleted template frees its place under the limit", () => {
    const deleted: AccountTemplateEvent = { type: "TemplateDeleted", data: { accountId: "acc_1", templateId: "t1", name: "a", version: 1, at } };
    spec
      .given([created("t1", "a"), created("t2", "b"), created("t3", "c"), deleted])
      .when(create("t4", "d"))
      .then([created("t4", "d")]);
  });

  it("revises to a new version; the state keeps the newest", () => {
    const revised: AccountTemplateEvent = {
      type: "TemplateRevised",
      data: { accountId: "acc_1", templateId: "t1", name: "a2", version: 2, design: revisedDesign, at },
    };
    spec
      .given([created("t1", "a")])
      .when({ type: "ReviseTemplate", templateId: "t1", name: "a2", design: revisedDesign, now })
      .then([revised]);
    spec.given([]).when({ type: "ReviseTemplate", templateId: "t1", name: "a", design, now }).thenRejects("TEMPLATE_NOT_FOUND");
    spec
      .given([created("t1", "a"), created("t2", "b")])
      .when({ type: "ReviseTemplate", templateId: "t2", name: "a", design, now })
      .thenRejects("TEMPLATE_NAME_TAKEN");
    const state = spec.given([created("t1", "a"), revised]).state();
    expect(findAccountTemplate(state, "a2")).toMatchObject({ templateId: "t1", version: 2, design: revisedDesign, createdAt: at });
    expect(findAccountTemplate(state, "t1")?.version).toBe(2);
    expect(findAccountTemplate(state, "a")).toBeUndefined();
  });

  it("deletes once; a deleted template is not found", () => {
    const deleted: AccountTemplateEvent = { type: "TemplateDeleted", data: { accountId: "acc_1", templateId: "t1", name: "a", version: 1, at } };
    spec
      .given([created("t1", "a")])
      .when({ type: "DeleteTemplate", templateId: "t1", now })
      .then([deleted]);
    spec
      .given([created("t1", "a"), deleted])
      .when({ type: "DeleteTemplate", templateId: "t1", now })
      .thenRejects("TEMPLATE_NOT_FOUND");
    expect(findAccountTemplate(spec.given([created("t1", "a"), deleted]).state(), "t1")).toBeUndefined();
  });

  it("refuses a design that breaks its rules, and a bad name", () => {
    const outside: Design = { ...design, layers: [{ type: "shape", box: { x: 1100, y: 0, width: 200, height: 10 }, fill: "#ffffff" }] };
    spec
      .given([])
      .when({ ...create("t1", "a"), design: outside })
      .thenRejects("INVALID_TEMPLATE");
    spec.given([]).when(create("t1", "Not A Name")).thenRejects("INVALID_TEMPLATE");
  });
});
