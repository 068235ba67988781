import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfOf, scannedPage } from "../support/document-fixtures.ts";
import { makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * A job may read a longer document than a request (docs/jobs.md): MAX_DOCUMENT_PAGES bounds a
 * synchronous /ocr, MAX_JOB_DOCUMENT_PAGES one sent with Prefer: respond-async. Over real HTTPS on
 * the service's own process and SQLite store, with both limits set small so that the pages are few and tiny.
 */
const dataDir = makeDataDir();
const env = { MAX_DOCUMENT_PAGES: "2", MAX_JOB_DOCUMENT_PAGES: "4", RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "60000" };
const cli = { DATA_DIR: dataDir };
const ASYNC = { Prefer: "respond-async" };
let service: ServiceProcess;
let pages: Array<Uint8Array>;

beforeAll(async () => {
  [service, pages] = await Promise.all([
    startService({ dataDir, env }),
    Promise.all(Array.from({ length: 5 }, (_, i) => scannedPage(`Page ${i + 1} signed`, 480))),
  ]);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const used = async (key: string) => (await service.client.request("GET", "/api/user/profile", { key })).json.data.quota.used as number;
const pdf = async (count: number) => Buffer.from(await pdfOf(pages.slice(0, count))).toString("base64");

describe("document pages: a request's limit and a job's", () => {
  it("refuses a synchronous document over MAX_DOCUMENT_PAGES with 413 that points at Prefer: respond-async, at no cost", async () => {
    const key = (await provisionAccount(cli, "pro")).keys[0]!.key;
    const refused = await service.client.request("POST", "/api/ocr", { key, body: { image: await pdf(3), language: "eng" } });
    expect(refused.status).toBe(413);
    expect(refused.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(refused.json.error.message).toContain("3 pages; the limit is 2 pages");
    expect(refused.json.error.message).toContain("Prefer: respond-async");
    expect(refused.json.error.message).toContain("up to 4 pages");
    expect(await used(key)).toBe(0);
  });

  it("accepts the same document as a job and reads every page, charged per page once", async () => {
    const key = (await provisionAccount(cli, "pro")).keys[0]!.key;
    const accepted = await service.client.request("POST", "/api/ocr", { key, headers: ASYNC, body: { image: await pdf(3), language: "eng" } });
    expect(accepted.status).toBe(202);
    const location = accepted.headers["location"]!;
    let job = (await service.client.request("GET", location, { key })).json.data;
    for (const until = Date.now() + 60_000; job.status !== "succeeded" && job.status !== "failed" && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      job = (await service.client.request("GET", location, { key })).json.data;
    }
    expect(job.status).toBe("succeeded");
    expect(job.result.pages).toHaveLength(3);
    expect(job.result.pages[2].text).toContain("Page 3");
    expect(await used(key)).toBe(3);
  }, 90_000);

  it("refuses a job over MAX_JOB_DOCUMENT_PAGES with 413 before accepting it, at no cost", async () => {
    const key = (await provisionAccount(cli, "pro")).keys[0]!.key;
    const refused = await service.client.request("POST", "/api/ocr", { key, headers: ASYNC, body: { image: await pdf(5), language: "eng" } });
    expect(refused.status).toBe(413);
    expect(refused.json.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("5 pages; the limit is 4 pages") });
    expect(await used(key)).toBe(0);
  });
});
