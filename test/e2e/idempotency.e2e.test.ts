import { randomUUID } from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { photoJpeg, photoPng } from "../support/image-fixtures.ts";
import { postgresUrl } from "../support/postgres.ts";
import { makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Idempotency-Key (docs/api-decisions.md) and client disconnects, on two service processes that
 * share one PostgreSQL event store (a fresh schema): a retry is answered from the first response and
 * charged once, whichever instance it reaches; a client that leaves stops the work it paid for.
 */
const schema = `its_idem_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
// No NATS: keys reach each instance from the store itself; per-key rates are not under test. The
// kept responses, like results, live in the shared database (RESULT_STORE=postgres).
const shared = {
  EVENT_STORE: "postgres",
  DATABASE_URL: `${postgresUrl}?schema=${schema}`,
  RESULT_STORE: "postgres",
  SERVER_SECRET: `idempotency-${randomUUID()}`,
};
const perInstance = { ...shared, ENGINE_CONCURRENCY: "1", ENGINE_QUEUE_LENGTH: "100", RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "60000" };

let instances: Array<ServiceProcess> = [];
const cli = { ...shared, DATA_DIR: makeDataDir() };
const db = new Client({ connectionString: postgresUrl });
let image: string;

beforeAll(async () => {
  await db.connect();
  [instances, image] = await Promise.all([
    Promise.all([startService({ env: perInstance }), startService({ env: perInstance })]),
    photoPng(96, 64).then((png) => png.toString("base64")),
  ]);
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  for (const dir of [...instances.map((instance) => instance.dataDir), cli.DATA_DIR]) fs.rmSync(dir, { recursive: true, force: true });
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.end();
});

const body = { image: "", template: "instagram-square", templateType: "social" };
const generate = (instance: ServiceProcess, key: string, idempotencyKey: string, payload: object = { ...body, image }) =>
  instance.client.request("POST", "/api/generate", { key, body: payload, headers: { "Idempotency-Key": idempotencyKey } });
const used = async (key: string) => (await instances[0]!.client.request("GET", "/api/user/profile", { key })).json.data.quota.used as number;

/** The account's quota events as the store holds them. */
const ledger = async (accountId: string) =>
  (
    await db.query<{ type: string; data: { requestId: string; reason?: string } }>(
      `SELECT type, data FROM ${schema}.events WHERE stream_name LIKE $1 ORDER BY global_position`,
      [`quota-${accountId}-%`],
    )
  ).rows;
const count = (events: ReadonlyArray<{ type: string }>, type: string) => events.filter((event) => event.type === type).length;

describe("Idempotency-Key", () => {
  it("answers a retry with the first response (same requestId, resultUrl, status) on either instance, charged once", async () => {
    const { accountId, keys } = await provisionAccount(cli, "free");
    const key = keys[0]!.key;
    const first = await generate(instances[0]!, key, "order-1001");
    expect(first.status).toBe(200);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    for (const instance of instances) {
      const retry = await generate(instance, key, "order-1001");
      expect(retry.status).toBe(200);
      expect(retry.json).toEqual(first.json);
      expect(retry.headers["idempotent-replayed"]).toBe("true");
    }
    expect(await used(key)).toBe(1);
    expect(count(await ledger(accountId), "QuotaReserved")).toBe(1);
    // Another key is another request.
    expect((await generate(instances[1]!, key, "order-1002")).json.data.requestId).not.toBe(first.json.data.requestId);
    expect(await used(key)).toBe(2);
  });

  it("refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED) at no cost, and keys belong to one account", async () => {
    const [mine, theirs] = [await provisionAccount(cli, "free"), await provisionAccount(cli, "free")];
    expect((await generate(instances[0]!, mine.keys[0]!.key, "shared-key")).status).toBe(200);
    const reused = await generate(instances[1]!, mine.keys[0]!.key, "shared-key", { ...body, image, template: "instagram-portrait" });
    expect(reused.status).toBe(422);
    expect(reused.json.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await used(mine.keys[0]!.key)).toBe(1);
    // The same key string of another account is that account's own.
    expect((await generate(instances[1]!, theirs.keys[0]!.key, "shared-key", { ...body, image, template: "instagram-portrait" })).status).toBe(200);
    const invalid = await generate(instances[0]!, mine.keys[0]!.key, "x".repeat(256));
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.details).toEqual([{ path: "Idempotency-Key", message: expect.any(String) }]);
  });

  it("runs 20 concurrent requests with one key over two instances once: one transformation, one charge", async () => {
    const { accountId, keys } = await provisionAccount(cli, "free");
    const key = keys[0]!.key;
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => generate(instances[i % 2]!, key, "burst-1")));
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    expect(new Set(replies.map((reply) => reply.json.data.requestId)).size).toBe(1);
    expect(new Set(replies.map((reply) => reply.json.data.resultUrl)).size).toBe(1);
    expect(replies.filter((reply) => reply.headers["idempotent-replayed"] === "true")).toHaveLength(19);
    const events = await ledger(accountId);
    expect([count(events, "QuotaReserved"), count(events, "QuotaCommitted")]).toEqual([1, 1]);
    const transformations = await db.query(
      `SELECT count(*)::int AS n FROM ${schema}.events WHERE type = 'TransformationRequested' AND data->>'accountId' = $1`,
      [accountId],
    );
    expect(transformations.rows[0].n).toBe(1);
    expect(await used(key)).toBe(1);
  });
});

describe("a response that could not be kept", () => {
  it("is not run again: the repeat gets 410 IDEMPOTENCY_RESPONSE_GONE, and the request is charged once", async () => {
    const { accountId, keys } = await provisionAccount(cli, "free");
    const key = keys[0]!.key;
    const ocr = (instance: ServiceProcess) =>
      instance.client.request("POST", "/api/ocr", { key, body: { image }, headers: { "Idempotency-Key": "scan-lost" } });
    // The result store refuses every write while the first request finishes (/ocr itself writes no result).
    await db.query(`ALTER TABLE ${schema}.results RENAME TO results_away`);
    let first;
    try {
      first = await ocr(instances[0]!);
    } finally {
      await db.query(`ALTER TABLE ${schema}.results_away RENAME TO results`);
    }
    expect(first.status).toBe(200);
    // The key's completion names a body the store never took.
    const completed = await db.query<{ data: { response: { bodyRef: string } } }>(
      `SELECT data FROM ${schema}.events WHERE type = 'IdempotentRequestCompleted' AND metadata->'actor'->>'accountId' = $1`,
      [accountId],
    );
    expect(completed.rows).toHaveLength(1);
    const kept = await db.query(`SELECT 1 FROM ${schema}.results WHERE result_id = $1`, [completed.rows[0]!.data.response.bodyRef]);
    expect(kept.rows).toHaveLength(0);
    for (const instance of instances) {
      const retry = await ocr(instance);
      expect(retry.status).toBe(410);
      expect(retry.json.error.code).toBe("IDEMPOTENCY_RESPONSE_GONE");
    }
    expect(count(await ledger(accountId), "QuotaCommitted")).toBe(1);
    expect(await used(key)).toBe(1);
  });
});

describe("a client that leaves", () => {
  it("stops the engine work it paid for, and every reservation is still committed or released", async () => {
    const { accountId, keys } = await provisionAccount(cli, "enterprise");
    const big = (await photoJpeg(3000, 2000)).toString("base64");
    const payload = Buffer.from(JSON.stringify({ ...body, image: big, template: "instagram-square" }));
    const instance = instances[0]!;
    // One render at a time: of six at once, most wait in the engine's queue when the clients leave.
    const requests = Array.from({ length: 6 }, () => {
      const req = https.request(new URL("/api/generate", instance.client.baseUrl), {
        method: "POST",
        agent: instance.client.agent,
        headers: { Authorization: `Bearer ${keys[0]!.key}`, "Content-Type": "application/json", "Content-Length": String(payload.length) },
      });
      req.on("error", () => undefined);
      req.end(payload);
      return req;
    });
    const reservedBy = Date.now() + 20_000;
    while (count(await ledger(accountId), "QuotaReserved") < 6 && Date.now() < reservedBy) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const req of requests) req.destroy();

    let events = await ledger(accountId);
    const settledBy = Date.now() + 20_000;
    while (count(events, "QuotaReserved") > count(events, "QuotaCommitted") + count(events, "QuotaReleased") && Date.now() < settledBy) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      events = await ledger(accountId);
    }
    expect(count(events, "QuotaReserved")).toBe(6);
    expect(count(events, "QuotaCommitted") + count(events, "QuotaReleased")).toBe(6);
    const interrupted = events.filter((event) => event.type === "QuotaReleased" && event.data.reason === "Interrupted");
    expect(interrupted.length).toBeGreaterThanOrEqual(4);
    expect((await instance.client.request("GET", "/api/user/profile", { key: keys[0]!.key })).json.data.quota.used).toBe(count(events, "QuotaCommitted"));
  });
});
