import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfOf, scannedPage } from "../support/document-fixtures.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { postgresUrl } from "../support/postgres.ts";
import { makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Jobs in a fleet (docs/jobs.md): two instances on one PostgreSQL store and the real NATS, results
 * (and so jobs' bodies) in PostgreSQL. A job accepted by one instance that is then killed with
 * SIGKILL is claimed by the other when its lease passes, finished, and charged once.
 */
const schema = `its_jobs_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
const namespace = testNamespace();
const shared = {
  EVENT_STORE: "postgres",
  DATABASE_URL: `${postgresUrl}?schema=${schema}`,
  RESULT_STORE: "postgres",
  SERVER_SECRET: `jobs-fleet-${randomUUID()}`,
  NATS_URL,
  NATS_NAMESPACE: namespace,
  JOB_LEASE_SECONDS: "2",
  RATE_LIMIT_BURST: "1000",
  RATE_LIMIT_PER_MINUTE: "60000",
};

const PAGES = 16;
let instances: Array<ServiceProcess> = [];
const cli = { ...shared, DATA_DIR: makeDataDir() };

beforeAll(async () => {
  instances = await Promise.all([startService({ env: shared }), startService({ env: shared })]);
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  for (const dir of [...instances.map((instance) => instance.dataDir), cli.DATA_DIR]) fs.rmSync(dir, { recursive: true, force: true });
  const db = new Client({ connectionString: postgresUrl });
  await db.connect();
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.end();
  await dropNatsNamespace(namespace);
});

/** The job a GET answered; any other answer fails the test with what it said (a TypeError said nothing). */
const jobOf = (reply: { readonly status: number; readonly json: { readonly data?: unknown } }) => {
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  return reply.json.data as { status: string; attempts: number; progress: { done: number }; result?: { pages: Array<{ text: string }> } };
};

describe("jobs on two instances", () => {
  it("finishes on the survivor a job whose instance was killed mid-job, charged once", async () => {
    const [victim, survivor] = instances as [ServiceProcess, ServiceProcess];
    const { keys } = await provisionAccount(cli, "pro");
    const key = keys[0]!.key;
    const pages = await Promise.all(Array.from({ length: PAGES }, (_, i) => scannedPage(`Page ${i + 1}: the survivor reads what the victim began.`)));
    const pdf = Buffer.from(await pdfOf(pages)).toString("base64");
    const accepted = await victim.client.request("POST", "/api/ocr", { key, headers: { Prefer: "respond-async" }, body: { image: pdf, language: "eng" } });
    expect(accepted.status).toBe(202);
    // Killed the moment it is seen mid-job: a fixed wait let a fast machine finish the whole job first.
    for (;;) {
      const seen = jobOf(await victim.client.request("GET", accepted.headers["location"]!, { key }));
      expect(seen.status).not.toBe("succeeded");
      if (seen.status === "running" && seen.progress.done >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await victim.stop("SIGKILL");

    const until = Date.now() + 120_000;
    let job: ReturnType<typeof jobOf>;
    for (;;) {
      job = jobOf(await survivor.client.request("GET", accepted.headers["location"]!, { key }));
      if (job.status === "succeeded" || job.status === "failed" || Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(job.status).toBe("succeeded");
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(job.result!.pages).toHaveLength(PAGES);
    expect(job.result!.pages[PAGES - 1]!.text).toContain(`Page ${PAGES}`);
    expect((await survivor.client.request("GET", "/api/user/profile", { key })).json.data.quota.used).toBe(PAGES);
  }, 180_000);
});
