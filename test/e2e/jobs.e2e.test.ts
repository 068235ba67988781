import fs from "node:fs";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfOf, scannedPage } from "../support/document-fixtures.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * Work that outlasts a request (docs/jobs.md), over real HTTPS on the service's own process and its
 * SQLite store: Prefer: respond-async answers 202 at once with the job; the job runs the
 * synchronous call's own work and keeps its data; a SIGKILL mid-job loses nothing and charges once.
 */
const dataDir = makeDataDir();
// A short lease, so that a job left by a killed process is taken over within the test's patience.
// Webhooks go to a receiver on loopback (allowed for tests only), retried after 1 s.
const env = {
  JOB_LEASE_SECONDS: "2",
  RATE_LIMIT_BURST: "1000",
  RATE_LIMIT_PER_MINUTE: "60000",
  WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
  WEBHOOK_RETRY_SCHEDULE_SECONDS: "0,1,1",
};
const cli = { DATA_DIR: dataDir };
let service: ServiceProcess;
let image: string;
const ASYNC = { Prefer: "respond-async" };

beforeAll(async () => {
  [service, image] = await Promise.all([startService({ dataDir, env }), photoPng(320, 200).then((png) => png.toString("base64"))]);
});
afterAll(async () => {
  await service.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const used = async (key: string) => (await service.client.request("GET", "/api/user/profile", { key })).json.data.quota.used as number;

/** Polls the job until it has ended (or the patience runs out). */
const finished = async (key: string, location: string, patienceMs = 60_000) => {
  const until = Date.now() + patienceMs;
  for (;;) {
    const reply = await service.client.request("GET", location, { key });
    expect(reply.status).toBe(200);
    if (reply.json.data.status === "succeeded" || reply.json.data.status === "failed" || Date.now() > until) return reply.json.data;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

describe("asynchronous requests (Prefer: respond-async)", () => {
  it("answers /generate with 202, Location and the queued job at once; the job's result is the synchronous data, charged once", async () => {
    const { keys } = await provisionAccount(cli, "pro");
    const key = keys[0]!.key;
    const started = Date.now();
    const accepted = await service.client.request("POST", "/api/generate", {
      key,
      headers: ASYNC,
      body: { image, template: "instagram-square", templateType: "social" },
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(accepted.status).toBe(202);
    expect(accepted.headers["preference-applied"]).toBe("respond-async");
    const { jobId, status, operation } = accepted.json.data;
    expect({ status, operation }).toEqual({ status: "queued", operation: "generate" });
    expect(accepted.headers["location"]).toBe(`/api/jobs/${jobId}`);

    const job = await finished(key, accepted.headers["location"]!);
    expect(job).toMatchObject({ jobId, status: "succeeded", operation: "generate", attempts: 1, progress: { done: 1, total: 1 } });
    expect(job.result).toMatchObject({ template: "instagram-square", templateType: "social", width: 1080, height: 1080 });
    expect(job.result.receipt.body.kind).toBe("charge");
    const result = await service.client.request("GET", new URL(job.result.resultUrl).pathname + new URL(job.result.resultUrl).search);
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("image/jpeg");
    expect(await used(key)).toBe(1);
  });

  it("tells the account's webhook when the job ends, signed; a receiver that fails the first delivery gets it again", async () => {
    const { keys } = await provisionAccount(cli, "pro");
    const key = keys[0]!.key;
    const receiver = await startWebhookReceiver();
    try {
      receiver.answer(500);
      const registered = await service.client.request("POST", "/api/webhooks", { key, body: { url: receiver.url() } });
      expect(registered.status).toBe(201);
      const accepted = await service.client.request("POST", "/api/generate", {
        key,
        headers: ASYNC,
        body: { image, template: "circle", templateType: "avatar" },
      });
      const jobId = accepted.json.data.jobId;
      const [first, second] = await receiver.waitFor(2, 30_000);
      expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
      const payload = new Webhook(registered.json.data.secret).verify(second!.body, second!.headers as Record<string, string>);
      expect(payload).toMatchObject({ type: "job.succeeded", data: { jobId, operation: "generate", status: "succeeded" } });
      expect(await used(key)).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it("gives a repeat with the same Idempotency-Key the same 202 and job; another account's job does not exist for it", async () => {
    const { keys } = await provisionAccount(cli, "free");
    const key = keys[0]!.key;
    const send = () =>
      service.client.request("POST", "/api/generate", {
        key,
        headers: { ...ASYNC, "Idempotency-Key": "async-1" },
        body: { image, template: "square", templateType: "avatar" },
      });
    const first = await send();
    const repeat = await send();
    expect(first.status).toBe(202);
    expect(repeat.status).toBe(202);
    expect(repeat.json).toEqual(first.json);
    expect(repeat.headers["idempotent-replayed"]).toBe("true");
    await finished(key, `/api/jobs/${first.json.data.jobId}`);
    expect(await used(key)).toBe(1);

    const stranger = (await provisionAccount(cli, "free")).keys[0]!.key;
    expect((await service.client.request("GET", `/api/jobs/${first.json.data.jobId}`, { key: stranger })).status).toBe(404);
    const listed = await service.client.request("GET", "/api/jobs", { key: stranger });
    expect(listed.json.data.jobs).toEqual([]);
  });

  it("refuses a body it would refuse synchronously before any job exists, at no cost", async () => {
    const { keys } = await provisionAccount(cli, "free");
    const key = keys[0]!.key;
    const unknown = await service.client.request("POST", "/api/generate", {
      key,
      headers: ASYNC,
      body: { image, template: "nope", templateType: "social" },
    });
    expect(unknown.status).toBe(400);
    const notIncluded = await service.client.request("POST", "/api/virtual-tryon", { key, headers: ASYNC, body: { personImage: image, clothingImage: image } });
    expect(notIncluded.status).toBe(403);
    expect(await used(key)).toBe(0);
    expect((await service.client.request("GET", "/api/jobs", { key })).json.data.jobs).toEqual([]);
  });

  it("lists the account's jobs newest first, a page at a time, and names a cursor it did not make", async () => {
    const { keys } = await provisionAccount(cli, "pro");
    const key = keys[0]!.key;
    const ids: Array<string> = [];
    for (let i = 0; i < 3; i++) {
      const accepted = await service.client.request("POST", "/api/generate", {
        key,
        headers: ASYNC,
        body: { image, template: "small", templateType: "thumbnail" },
      });
      ids.push(accepted.json.data.jobId);
    }
    for (const id of ids) await finished(key, `/api/jobs/${id}`);
    const seen: Array<string> = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const reply = await service.client.request("GET", `/api/jobs?limit=2${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, { key });
      expect(reply.status).toBe(200);
      seen.push(...reply.json.data.jobs.map((job: { jobId: string }) => job.jobId));
      cursor = reply.json.data.next;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual([...ids].reverse());
    expect((await service.client.request("GET", "/api/jobs?cursor=bogus", { key })).status).toBe(400);
    expect((await service.client.request("GET", "/api/jobs?limit=1000", { key })).status).toBe(400);
  });

  it("runs a document read as a job: every page, charged per page once, even when the process is killed mid-job and started again", async () => {
    const { keys } = await provisionAccount(cli, "pro");
    const key = keys[0]!.key;
    const pages = await Promise.all(Array.from({ length: 8 }, (_, i) => scannedPage(`Page ${i + 1} of the contract: the parties agree to the terms.`)));
    const pdf = Buffer.from(await pdfOf(pages)).toString("base64");
    const accepted = await service.client.request("POST", "/api/ocr", { key, headers: ASYNC, body: { image: pdf, language: "eng" } });
    expect(accepted.status).toBe(202);
    const location = accepted.headers["location"]!;
    // Killed while the job runs, once it has read a page (a fixed wait let a fast run finish first): its
    // claim's lease passes and the process started again on the same files takes it over.
    let progress = { done: 0, total: 8 };
    while (progress.done === 0) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      progress = (await service.client.request("GET", location, { key })).json.data.progress ?? progress;
    }
    await service.stop("SIGKILL");
    expect(progress.done).toBeLessThan(8);
    service = await startService({ dataDir, env });
    const job = await finished(key, location, 120_000);
    expect(job.status).toBe("succeeded");
    expect(job.progress).toEqual({ done: 8, total: 8 });
    // The first run was cut short: the one that finished it took it over.
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(job.result.pages).toHaveLength(8);
    expect(job.result.pages[7].text).toContain("Page 8");
    expect(await used(key)).toBe(8);
  }, 180_000);
});
