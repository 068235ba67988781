import { Effect } from "effect";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeLogger } from "../../src/adapters/http/server/logger.ts";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { createKey, openAccount } from "../../src/application/access/accounts.ts";
import { handleCommand } from "../../src/application/event-sourcing/command-handler.ts";
import { jobStreamType } from "../../src/application/event-sourcing/events/job-events.ts";
import { loadConfig } from "../../src/config.ts";
import { jobStream } from "../../src/domain/job.ts";
import { startHttpService } from "../../src/http-service.ts";
import { serverLayer } from "../../src/server-composition.ts";
import { HttpsClient } from "../support/https-client.ts";
import { type InProcessService, startInProcess } from "../support/in-process-service.ts";
import { makeWebhookValidator } from "../support/openapi-webhook-validator.ts";
import { makeDataDir } from "../support/service-process.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * Webhooks over real HTTPS on the real service: registered, told of a job's end, signed as the
 * Standard Webhooks library verifies, retried with the same webhook-id, rotated, refused targets,
 * and a pending retry that survives a restart. Job ends are appended as the jobs feature appends them.
 */
const byTest = { actor: { kind: "service", task: "webhook e2e" } } as const;
type Runner = Pick<InProcessService["service"], "runtime">;

/** A job accepted, run and ended, on the service's own store. */
const endJob = (service: Runner, accountId: string, jobId: string, outcome: "succeed" | "fail") => {
  const now = () => new Date();
  const stream = jobStream(jobId);
  return service.runtime.runPromise(
    Effect.gen(function* () {
      yield* handleCommand(
        jobStreamType,
        stream,
        {
          type: "AcceptJob",
          jobId,
          accountId,
          keyId: "k",
          operation: "generate",
          requestId: `req-${jobId}`,
          units: 1,
          inputRef: "in",
          inputSha256: "0".repeat(64),
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          now: now(),
        },
        byTest,
      );
      yield* handleCommand(jobStreamType, stream, { type: "StartJob", worker: "w", leaseUntil: new Date(Date.now() + 60_000), now: now() }, byTest);
      yield* outcome === "succeed"
        ? handleCommand(jobStreamType, stream, { type: "SucceedJob", worker: "w", resultRef: "r", resultSha256: "1".repeat(64), now: now() }, byTest)
        : handleCommand(jobStreamType, stream, { type: "FailJob", worker: "w", code: "INVALID_IMAGE", message: "not an image", now: now() }, byTest);
    }),
  );
};

let insecure: InProcessService;
let secure: InProcessService;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const rates = { RATE_LIMIT_BURST: "10000", RATE_LIMIT_PER_MINUTE: "10000" };
  insecure = await startInProcess({ ...rates, WEBHOOK_ALLOW_INSECURE_TARGETS: "true", WEBHOOK_RETRY_SCHEDULE_SECONDS: "0,1,1", WEBHOOK_MAX_ENDPOINTS: "3" });
  secure = await startInProcess(rates);
}, 120_000);
afterAll(async () => {
  await Promise.all([insecure?.stop(), secure?.stop(), receiver?.close()]);
});

const call = (service: InProcessService, method: string, path: string, key: string, body?: unknown) =>
  service.client.request(method, `/api${path}`, { key, ...(body === undefined ? {} : { body }) });

describe("webhooks over HTTPS", () => {
  it("tells an endpoint of a job's end, signed; a failed first delivery comes again with the same webhook-id", async () => {
    const { accountId, key } = await insecure.provision("pro");
    const created = await call(insecure, "POST", "/webhooks", key, { url: receiver.url("/a") });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ id: expect.stringMatching(/^wh_/), url: receiver.url("/a"), events: ["job.succeeded", "job.failed"] });
    const secret = created.json.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const listed = await call(insecure, "GET", "/webhooks", key);
    expect(listed.json.data.webhooks).toEqual([expect.objectContaining({ id: created.json.data.id, status: "active", disabledReason: null })]);
    expect(JSON.stringify(listed.json)).not.toContain(secret);

    receiver.received.length = 0;
    receiver.answer(500);
    await endJob(insecure.service, accountId, "job-a", "succeed");
    const [first, second] = await receiver.waitFor(2);
    expect(first!.headers["webhook-id"]).toBe(second!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    const payload = new Webhook(secret).verify(second!.body, second!.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toMatchObject({ type: "job.succeeded", data: { jobId: "job-a", operation: "generate", status: "succeeded" } });
    expect(second!.headers["content-type"]).toBe("application/json");
    // The message is what the served document's top-level webhooks declare: its body and its headers.
    const matchesDocument = makeWebhookValidator((await insecure.client.request("GET", "/api/openapi.json")).json);
    matchesDocument(second!);
    expect(() => matchesDocument({ ...second!, body: second!.body.replace('"status":"succeeded"', '"status":"done"') })).toThrow(/body/);

    // The endpoint's page shows the delivery: two attempts, the last a 200.
    let detail = await call(insecure, "GET", `/webhooks/${created.json.data.id}`, key);
    for (let i = 0; i < 40 && detail.json.data.deliveries[0]?.outcome !== "succeeded"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      detail = await call(insecure, "GET", `/webhooks/${created.json.data.id}`, key);
    }
    expect(detail.json.data.deliveries[0]).toMatchObject({
      eventType: "job.succeeded",
      attempts: 2,
      lastStatusCode: 200,
      outcome: "succeeded",
      nextAttemptAt: null,
    });

    // Resent: the same message, the same webhook-id.
    const resent = await call(insecure, "POST", `/webhooks/${created.json.data.id}/deliveries/${detail.json.data.deliveries[0].id}/resend`, key);
    expect(resent.status).toBe(200);
    const [, , third] = await receiver.waitFor(3);
    expect(third!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);

    // Another account sees none of it.
    const other = await insecure.provision("pro");
    expect((await call(insecure, "GET", `/webhooks/${created.json.data.id}`, other.key)).status).toBe(404);
    expect((await call(insecure, "DELETE", `/webhooks/${created.json.data.id}`, other.key)).status).toBe(404);
    expect((await call(insecure, "DELETE", `/webhooks/${created.json.data.id}`, key)).status).toBe(200);
  });

  it("signs with both secrets after a rotation; sends only the events asked for", async () => {
    const { accountId, key } = await insecure.provision("pro");
    const created = await call(insecure, "POST", "/webhooks", key, { url: receiver.url("/b"), events: ["job.failed"] });
    const rotated = await call(insecure, "POST", `/webhooks/${created.json.data.id}/rotate-secret`, key);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.json.data.secret as string;
    expect(newSecret).not.toBe(created.json.data.secret);
    receiver.received.length = 0;
    await endJob(insecure.service, accountId, "job-b1", "succeed");
    await endJob(insecure.service, accountId, "job-b2", "fail");
    const [message] = await receiver.waitFor(1);
    expect(String(message!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [newSecret, created.json.data.secret as string]) {
      expect(new Webhook(secret).verify(message!.body, message!.headers as Record<string, string>)).toMatchObject({
        type: "job.failed",
        data: { jobId: "job-b2", status: "failed", error: { code: "INVALID_IMAGE", message: "not an image" } },
      });
    }
    makeWebhookValidator((await insecure.client.request("GET", "/api/openapi.json")).json)(message!);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toHaveLength(1);
  });

  it("keeps at most WEBHOOK_MAX_ENDPOINTS an account (409)", async () => {
    const { key } = await insecure.provision("pro");
    for (let i = 0; i < 3; i++) expect((await call(insecure, "POST", "/webhooks", key, { url: receiver.url(`/c${i}`) })).status).toBe(201);
    const refused = await call(insecure, "POST", "/webhooks", key, { url: receiver.url("/c4") });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("WEBHOOK_LIMIT_REACHED");
  });

  it.each(["https://127.0.0.1/", "https://10.0.0.1/", "https://169.254.169.254/", "https://localhost/", "http://example.com/", "https://a:b@example.com/"])(
    "refuses %s as a target (400 naming url) without the insecure flag",
    async (url) => {
      const { key } = await secure.provision("pro");
      const refused = await call(secure, "POST", "/webhooks", key, { url });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ code: "INVALID_REQUEST", details: [expect.objectContaining({ path: "url" })] });
    },
  );

  it("refuses a body without a url, and an unknown event", async () => {
    const { key } = await secure.provision("pro");
    expect((await call(secure, "POST", "/webhooks", key, {})).status).toBe(400);
    expect((await call(secure, "POST", "/webhooks", key, { url: "https://example.com/", events: ["job.started"] })).status).toBe(400);
    expect((await call(secure, "POST", "/webhooks", key, { url: "https://example.com/", events: [] })).status).toBe(400);
  });
});

describe("a pending retry across a restart", () => {
  it("is delivered once by the restarted service", async () => {
    const dataDir = makeDataDir();
    const config = loadConfig(
      { DATA_DIR: dataDir, PORT: "0", HTTP_PORT: "0", OCR_WORKERS: "1", WEBHOOK_ALLOW_INSECURE_TARGETS: "true", WEBHOOK_RETRY_SCHEDULE_SECONDS: "0,4" },
      2,
    );
    const start = async () => {
      const service = await startHttpService({ config, secrets: loadServerSecrets(config), logger: makeLogger("silent"), layer: serverLayer });
      return { service, client: new HttpsClient(service.servers.publicBaseUrl, Buffer.from(service.tls.cert)) };
    };
    let { service, client } = await start();
    const { accountId, key } = await service.runtime.runPromise(
      Effect.gen(function* () {
        const account = yield* openAccount({ email: "restart@example.com", name: "Restart", plan: "pro" }, byTest.actor);
        return { accountId: account.id, key: (yield* createKey(account.id, "test", byTest.actor)).key };
      }),
    );
    for (let i = 0; i < 50 && (await client.send("GET", "/api/user/profile", { key })).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await client.request("POST", "/api/webhooks", { key, body: { url: receiver.url("/restart") } })).status).toBe(201);
    receiver.received.length = 0;
    receiver.answer(503);
    await endJob(service, accountId, "job-r", "succeed");
    const [first] = await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    client.close();
    await service.stop(1000);

    ({ service, client } = await start());
    try {
      const [, second] = await receiver.waitFor(2, 30_000);
      expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(receiver.received).toHaveLength(2);
    } finally {
      client.close();
      await service.stop(1000);
    }
  }, 120_000);
});
