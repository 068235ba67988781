import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { JOB_QUERIES, jobProjectionDefinition } from "../../src/adapters/projections/sqlite-job-projection.ts";

/**
 * The jobs projection's readers, each held to its index by SQLite's own EXPLAIN QUERY PLAN, on a
 * table that looks like a working one (many accounts, most jobs ended, a few open) and has been
 * ANALYZEd, so that the planner chooses as it would in production: a full scan of the table or a
 * sort would make GET /api/jobs and the runner's once-a-second poll grow with every job ever run.
 */
const db = new DatabaseSync(":memory:");
db.exec(jobProjectionDefinition.schema);
const insert = db.prepare("INSERT INTO jobs (job_id, account_id, operation, status, created_at, total) VALUES (?, ?, 'ocr', ?, ?, 1)");
db.exec("BEGIN");
for (let i = 0; i < 20_000; i++) {
  const status = i % 100 === 0 ? "queued" : i % 101 === 0 ? "running" : i % 7 === 0 ? "failed" : "succeeded";
  insert.run(`job-${i}`, `acc_${i % 500}`, status, new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString());
}
db.exec("COMMIT");
db.exec("ANALYZE");

const planOf = (sql: string) => {
  const parameters = Array.from(sql.matchAll(/\?/g), () => "acc_1");
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>).map((row) => row.detail);
};

describe("the jobs projection's query plans", () => {
  it.each([
    ["newest", "jobs_by_account"],
    ["newestBefore", "jobs_by_account"],
    ["openOf", "jobs_open_by_account"],
    ["claimable", "jobs_open"],
  ] as const)("%s reads %s, with no scan of the table and no sort", (query, index) => {
    const plan = planOf(JOB_QUERIES[query]);
    expect(plan.join(" | ")).toMatch(new RegExp(`USING (COVERING )?INDEX ${index}\\b`));
    // The runner's query walks the partial index of open jobs (in order, nothing else); the others search theirs by account.
    for (const step of plan) {
      expect(step).not.toMatch(/^SCAN jobs$/);
      expect(step).not.toMatch(/TEMP B-TREE/);
      if (query !== "claimable") expect(step).toMatch(/^SEARCH jobs USING/);
    }
  });
});
