import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { photoPng } from "../support/image-fixtures.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { postgresUrl } from "../support/postgres.ts";
import { itsctl, makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Two service processes on one PostgreSQL event store (a fresh schema) and the real NATS: one truth
 * for quota and keys, whichever instance a request reaches, and nothing lost when one is killed.
 */
const schema = `its_e2e_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
const namespace = testNamespace();
const RESERVATION_TTL_SECONDS = 5;
const shared = {
  EVENT_STORE: "postgres",
  DATABASE_URL: `${postgresUrl}?schema=${schema}`,
  SERVER_SECRET: `multi-instance-${randomUUID()}`,
  NATS_URL,
  NATS_NAMESPACE: namespace,
  QUOTA_RESERVATION_TTL_SECONDS: String(RESERVATION_TTL_SECONDS),
  // Two instances share two cores: one render at a time each, the rest wait in the engine queue.
  ENGINE_CONCURRENCY: "1",
  ENGINE_QUEUE_LENGTH: "100",
  // Per-key rate limits are not what these tests are about.
  RATE_LIMIT_BURST: "1000",
  RATE_LIMIT_PER_MINUTE: "60000",
};

let instances: Array<ServiceProcess> = [];
let cli: Record<string, string>;
let db: Client;
let image: string;

beforeAll(async () => {
  db = new Client({ connectionString: postgresUrl });
  await db.connect();
  instances = await Promise.all([startService({ env: shared }), startService({ env: shared })]);
  cli = { ...shared, DATA_DIR: makeDataDir() };
  image = (await photoPng(96, 64)).toString("base64");
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  for (const instance of instances) fs.rmSync(instance.dataDir, { recursive: true, force: true });
  if (cli) fs.rmSync(cli["DATA_DIR"]!, { recursive: true, force: true });
  await db?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db?.end();
  await dropNatsNamespace(namespace);
});

const generate = (instance: ServiceProcess, key: string, body: unknown = { image, template: "instagram-square", templateType: "social" }) =>
  instance.client.request("POST", "/api/generate", { key, body });
const profile = (instance: ServiceProcess, key: string) => instance.client.request("GET", "/api/user/profile", { key });

/** The account's quota events this month, as the store holds them. */
const ledgerEvents = async (accountId: string) =>
  (
    await db.query<{ type: string; data: { requestId: string; expiresAt?: string } }>(
      `SELECT type, data FROM ${schema}.events WHERE stream_name LIKE $1 ORDER BY global_position`,
      [`quota-${accountId}-%`],
    )
  ).rows;
const transformationEvents = async (requestId: string) =>
  (
    await db.query<{ type: string }>(`SELECT type FROM ${schema}.events WHERE stream_name = $1 ORDER BY stream_revision`, [`transformation-${requestId}`])
  ).rows.map((row) => row.type);

describe("two instances on one PostgreSQL store", () => {
  it("give exactly 50 of 60 concurrent /generate requests over 5 keys of one free account, in total", async () => {
    const { accountId, keys } = await provisionAccount(cli, "free", 5);
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => generate(instances[i % 2]!, keys[i % 5]!.key)));
    const byInstance = [0, 1].map((n) => replies.filter((r, i) => i % 2 === n && r.status === 200).length);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(50);
    expect(byInstance.every((count) => count > 0)).toBe(true);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused).toHaveLength(10);
    for (const r of refused) expect(r.json.error.code).toBe("QUOTA_EXCEEDED");
    for (const instance of instances) {
      expect((await profile(instance, keys[0]!.key)).json.data.quota).toMatchObject({ limit: 50, used: 50, remaining: 0 });
    }
    expect((await ledgerEvents(accountId)).filter((e) => e.type === "QuotaCommitted")).toHaveLength(50);
  });

  it("refuse a key deleted with the CLI on both instances within 1 s", async () => {
    const { accountId, keys } = await provisionAccount(cli, "pro");
    const key = keys[0]!;
    for (const instance of instances) expect((await profile(instance, key.key)).status).toBe(200);

    const deleted = await itsctl(cli, ["key", "delete", "--account", accountId, "--key", key.id]);
    expect(deleted.code).toBe(0);
    const deletedAt = Date.now();
    const refusedAfter = await Promise.all(
      instances.map(async (instance) => {
        while ((await profile(instance, key.key)).status !== 401) {
          if (Date.now() - deletedAt > 5_000) return Number.POSITIVE_INFINITY;
        }
        return Date.now() - deletedAt;
      }),
    );
    for (const elapsed of refusedAfter) expect(elapsed).toBeLessThan(1_000);
  });

  it("end a rolled key's grace on both instances within 1 s, the new key working on both", async () => {
    const { accountId, keys } = await provisionAccount(cli, "pro");
    const old = keys[0]!;
    const rolled = await itsctl(cli, ["key", "roll", "--account", accountId, "--key", old.id, "--grace", "2s", "--json"]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const { key: replacement, rolledFrom } = JSON.parse(rolled.stdout) as { key: string; rolledFrom: { expiresAt: string } };
    const graceEnds = Date.parse(rolledFrom.expiresAt);
    const refusedAfter = await Promise.all(
      instances.map(async (instance) => {
        while ((await profile(instance, old.key)).status !== 401) {
          if (Date.now() - graceEnds > 5_000) return Number.POSITIVE_INFINITY;
        }
        return Date.now() - graceEnds;
      }),
    );
    for (const elapsed of refusedAfter) expect(elapsed).toBeLessThan(1_000);
    for (const instance of instances) expect((await profile(instance, replacement)).status).toBe(200);
  });

  it("lose no event and keep the quota exact when one instance is killed with SIGKILL under load", async () => {
    const { accountId, keys } = await provisionAccount(cli, "free", 5);
    const [victim, survivor] = instances as [ServiceProcess, ServiceProcess];
    const photo = (await photoPng(800, 600)).toString("base64");
    const body = { image: photo, template: "instagram-square", templateType: "social" };

    interface Outcome {
      readonly instance: ServiceProcess;
      readonly status: number | "connection lost";
      readonly requestId?: string;
      readonly code?: string;
    }
    const outcomes: Array<Outcome> = [];
    const inFlight = new Map<ServiceProcess, number>([
      [victim, 0],
      [survivor, 0],
    ]);
    let killed = false;
    let killedAt = 0;
    let exhausted = false;

    const send = async (instance: ServiceProcess, key: string) => {
      inFlight.set(instance, inFlight.get(instance)! + 1);
      try {
        const reply = await generate(instance, key, body);
        const outcome = { instance, status: reply.status, requestId: reply.json?.data?.requestId, code: reply.json?.error?.code };
        outcomes.push(outcome);
        return outcome;
      } catch {
        outcomes.push({ instance, status: "connection lost" });
        return undefined;
      } finally {
        inFlight.set(instance, inFlight.get(instance)! - 1);
      }
    };
    const worker = async (w: number) => {
      for (let i = 0; !exhausted; i++) {
        const instance = !killed && (w + i) % 2 === 0 ? victim : survivor;
        const outcome = await send(instance, keys[(w + i) % keys.length]!.key);
        if (outcome?.instance === survivor && outcome.code === "QUOTA_EXCEEDED") exhausted = true;
      }
    };
    // Kill the victim mid-load: after some successes, while several of its requests are in flight.
    const killer = (async () => {
      while (!exhausted && !(outcomes.filter((o) => o.status === 200).length >= 12 && inFlight.get(victim)! >= 3)) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (exhausted) return;
      process.kill(victim.pid, "SIGKILL");
      killed = true;
      killedAt = Date.now();
    })();
    await Promise.all([killer, ...Array.from({ length: 8 }, (_, w) => worker(w))]);
    expect(killed).toBe(true);
    const lostAtKill = outcomes.filter((o) => o.status === "connection lost").length;
    expect(lostAtKill).toBeGreaterThan(0);

    // What the victim reserved but never finished holds its unit until the reservation expires,
    // then the survivor may sell it again.
    const afterKill = await ledgerEvents(accountId);
    const closed = new Set(afterKill.filter((e) => e.type === "QuotaCommitted" || e.type === "QuotaReleased").map((e) => e.data.requestId));
    const orphaned = afterKill.filter((e) => e.type === "QuotaReserved" && !closed.has(e.data.requestId));
    expect(orphaned.length).toBeGreaterThan(0);
    expect(orphaned.length).toBeLessThanOrEqual(lostAtKill);
    for (const e of orphaned) expect(Date.parse(e.data.expiresAt!)).toBeLessThanOrEqual(killedAt + RESERVATION_TTL_SECONDS * 1_000 + 1_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + RESERVATION_TTL_SECONDS * 1_000 + 500 - Date.now())));
    for (let i = 0; ; i++) {
      const outcome = await send(survivor, keys[i % keys.length]!.key);
      if (outcome?.code === "QUOTA_EXCEEDED") break;
      expect(outcome?.status).toBe(200);
    }

    // The store holds exactly the plan's 50 units, each committed once, and every answered success is among them.
    const ledger = await ledgerEvents(accountId);
    const committed = ledger.filter((e) => e.type === "QuotaCommitted").map((e) => e.data.requestId);
    expect(committed).toHaveLength(50);
    expect(new Set(committed).size).toBe(50);
    const answered = outcomes.filter((o) => o.status === 200).map((o) => o.requestId!);
    expect(answered.every((requestId) => committed.includes(requestId))).toBe(true);
    for (const requestId of answered) expect(await transformationEvents(requestId)).toEqual(["TransformationRequested", "TransformationCompleted"]);
    // Committed but never answered: only requests the victim was serving when it died.
    expect(committed.length - answered.length).toBeLessThanOrEqual(lostAtKill);
    expect((await profile(survivor, keys[0]!.key)).json.data.quota).toMatchObject({ limit: 50, used: 50, remaining: 0 });
    console.info(
      `[multi-instance] SIGKILL cut ${lostAtKill} requests: ${orphaned.length} reservations expired and were sold again, ` +
        `${committed.length - answered.length} committed units went unanswered, ${answered.length} successes answered`,
    );
  }, 120_000);
});
