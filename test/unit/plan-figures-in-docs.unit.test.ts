import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PLAN_IDS, PLANS, type RatePolicy } from "../../src/domain/plan.ts";

/**
 * The plans' figures (monthly transformations, features, the per-key rate, templates of an account's
 * own) are written once, in docs/api.md's "Rate limits and quotas". The sentences are built here from
 * PLANS, so the page cannot drift from the code; and no other page writes them again.
 */
const root = path.resolve(import.meta.dirname, "../..");
const API_DOC = "docs/api.md";
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
const apiDoc = read(API_DOC);

const unlimited = (value: number | null) => (value === null ? "unlimited" : String(value));
const rate = ({ burst, perMinute }: RatePolicy) => `${burst} burst, ${perMinute} per minute`;
const planRow = (id: (typeof PLAN_IDS)[number]) => {
  const plan = PLANS[id];
  return `| ${id} | ${unlimited(plan.monthlyTransformations)} | ${plan.features.join(", ")} | ${rate(plan.rate)} | ${unlimited(plan.accountTemplates)} |`;
};

const markdownFiles = (folder: string): ReadonlyArray<string> =>
  fs
    .readdirSync(path.join(root, folder), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? markdownFiles(path.join(folder, entry.name)) : entry.name.endsWith(".md") ? [path.join(folder, entry.name)] : [],
    );

describe("the plans' figures in the docs", () => {
  it("states each plan's quota, features, rate and template limit as PLANS has them", () => {
    expect(apiDoc).toContain("| plan | monthly transformations | features | rate per key | templates of your own |");
    for (const id of PLAN_IDS) expect(apiDoc).toContain(planRow(id));
  });

  it("states the per-key rate and its RateLimit-Policy as PLANS has them", () => {
    const rates = new Set(PLAN_IDS.map((id) => rate(PLANS[id].rate)));
    // The sentence states one rate for all plans: a plan with a rate of its own needs the sentence rewritten.
    expect([...rates]).toHaveLength(1);
    const { burst, perMinute } = PLANS.free.rate;
    expect(apiDoc).toContain(`Rate: a token bucket per key — ${burst} burst, refilled at ${perMinute} per minute;`);
    expect(apiDoc).toContain(`\`RateLimit-Policy: "per-key";q=${burst};w=${Math.round((burst * 60) / perMinute)}\``);
  });

  it("writes them nowhere else", () => {
    const others = ["README.md", ...markdownFiles("docs")].filter((file) => file !== API_DOC);
    for (const file of others) {
      const text = read(file);
      for (const id of PLAN_IDS) expect(text, file).not.toMatch(new RegExp(`^\\| ${id} \\|`, "m"));
      expect(text, file).not.toMatch(/refilled at \d+ per minute/);
    }
  });
});
