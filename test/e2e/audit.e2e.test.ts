import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { photoPng } from "../support/image-fixtures.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { itsctl, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * The audit through the real CLI and the real HTTPS API, on a service that runs its projections
 * over NATS: an account's history replayed from the event store, checked against the projections.
 */
const OPERATOR_TOKEN = "operator-token-for-tests-0123456789abcdef";
const namespace = testNamespace();
let service: ServiceProcess;
let image: string;

beforeAll(async () => {
  service = await startService({
    env: {
      NATS_URL,
      NATS_NAMESPACE: namespace,
      OPERATOR_TOKEN,
      // The periodic seal, every second while this suite runs.
      LEDGER_SEAL_INTERVAL_SECONDS: "1",
      // 60 requests on a handful of keys: the per-key rate is not what this suite is about.
      RATE_LIMIT_BURST: "1000",
      RATE_LIMIT_PER_MINUTE: "1000",
      // Webhooks to a closed port on loopback, failing twice a second apart: the endpoint is disabled within the test.
      WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
      WEBHOOK_RETRY_SCHEDULE_SECONDS: "0,1,1,1",
      WEBHOOK_DISABLE_AFTER_SECONDS: "1",
    },
  });
  image = (await photoPng(96, 64)).toString("base64");
});
afterAll(async () => {
  await service?.stop();
  await dropNatsNamespace(namespace);
});

interface Report {
  ok: boolean;
  history: Array<{
    type: string;
    what: string;
    keyId: string | null;
    requestId: string | null;
    operation: string | null;
    actor: { kind: string; keyId?: string } | null;
  }>;
  totals: {
    reserved: number;
    committed: number;
    released: number;
    refusedRequests: number;
    refusedUnits: number;
    lines: Array<{ keyId: string; committed: number; refusedRequests: number; refusedUnits: number }>;
  };
  keys: Array<{ keyId: string; revokedAt: string | null }>;
  jobs: { accepted: number; succeeded: number; failed: number; unitsCharged: number; unitsReleased: number };
  ledger: { ok: boolean; damage: Array<unknown>; seal: { source: string; streams: number; intervalSeconds: number | null } | null };
  verification: {
    storePosition: number;
    usageProjectionPosition: number;
    keyProjectionPosition: number;
    differences: Array<{ source: string; subject: string; field: string }>;
    notes: Array<string>;
  };
}

const audit = (accountId: string, ...args: Array<string>) => itsctl(service.env, ["audit", "--account", accountId, ...args]);

/** The audit once the projections have applied everything of the account (they run in the service, a moment behind). */
const settledAudit = async (accountId: string): Promise<{ code: number; report: Report }> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await audit(accountId, "--json");
    const report = JSON.parse(run.stdout) as Report;
    if (report.verification.notes.length === 0 || Date.now() > deadline) return { code: run.code, report };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

const generate = (key: string) =>
  service.client.request("POST", "/api/generate", { key, body: { image, template: "instagram-square", templateType: "social" } });

describe("itsctl audit", () => {
  let accountId: string;
  const keyIds: Array<string> = [];

  it("prints exactly the history of 50 transformations, 10 refusals and two key rotations, and exits 0", async () => {
    const provisioned = await provisionAccount(service.env, "free");
    accountId = provisioned.accountId;
    let current = provisioned.keys[0]!;
    keyIds.push(current.id);
    const statuses: Array<number> = [];
    for (let round = 0; round < 3; round++) {
      if (round > 0) {
        const created = await itsctl(service.env, ["key", "create", "--account", accountId, "--name", `rotated-${round}`, "--json"]);
        expect(created.code).toBe(0);
        const next = JSON.parse(created.stdout) as { id: string; key: string };
        expect((await itsctl(service.env, ["key", "delete", "--account", accountId, "--key", current.id])).code).toBe(0);
        current = next;
        keyIds.push(next.id);
      }
      for (let i = 0; i < 20; i++) statuses.push((await generate(current.key)).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);

    const { code, report } = await settledAudit(accountId);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.verification.notes).toEqual([]);
    expect(report.verification.differences).toEqual([]);
    const types = report.history.map((entry) => entry.type);
    const count = (type: string) => types.filter((t) => t === type).length;
    expect(types).toHaveLength(1 + 3 + 2 + 50 + 50 + 10);
    expect([count("AccountOpened"), count("ApiKeyIssued"), count("ApiKeyRevoked")]).toEqual([1, 3, 2]);
    expect([count("QuotaReserved"), count("QuotaCommitted"), count("QuotaReservationRefused"), count("QuotaReleased")]).toEqual([50, 50, 10, 0]);
    expect(report.totals).toMatchObject({ reserved: 50, committed: 50, released: 0, refusedRequests: 10, refusedUnits: 10 });
    expect(
      report.totals.lines
        .map(({ keyId, committed, refusedRequests, refusedUnits }) => ({ keyId, committed, refusedRequests, refusedUnits }))
        .sort((a, b) => keyIds.indexOf(a.keyId) - keyIds.indexOf(b.keyId)),
    ).toEqual([
      { keyId: keyIds[0], committed: 20, refusedRequests: 0, refusedUnits: 0 },
      { keyId: keyIds[1], committed: 20, refusedRequests: 0, refusedUnits: 0 },
      { keyId: keyIds[2], committed: 10, refusedRequests: 10, refusedUnits: 10 },
    ]);
    expect(report.keys.map((key) => [key.keyId, key.revokedAt === null])).toEqual([
      [keyIds[0], false],
      [keyIds[1], false],
      [keyIds[2], true],
    ]);
    // Every quota event names its key and request.
    const quota = report.history.filter((entry) => entry.type.startsWith("Quota"));
    expect(quota.every((entry) => entry.keyId !== null && entry.requestId !== null && entry.operation === "generate")).toBe(true);
    expect(new Set(quota.map((entry) => entry.requestId)).size).toBe(60);
    // Who acted: the key that made each request, the operator at the shell for the key lifecycle.
    expect(quota.every((entry) => entry.actor?.kind === "api-key" && entry.actor.keyId === entry.keyId)).toBe(true);
    expect(report.history.filter((entry) => entry.type.startsWith("ApiKey")).every((entry) => entry.actor?.kind === "operator")).toBe(true);
    // The chains were verified before the replay, and held to a seal the service made on its own.
    expect(report.ledger).toMatchObject({ ok: true, damage: [], seal: { source: "store", intervalSeconds: 1 } });
    expect(report.ledger.seal!.streams).toBeGreaterThan(1);

    const text = await audit(accountId);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Totals: 50 unit(s) committed, 0 unit(s) released, 50 unit(s) reserved, 10 request(s) refused (10 unit(s))");
    expect(text.stdout).toContain("Result: OK");
  });

  it("gives auditors the same report over the API, with the operator credential only", async () => {
    const url = `/api/audit/accounts/${accountId}`;
    const reply = await service.client.request("GET", url, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(reply.status).toBe(200);
    // The CLI adds its verification of the chains (`ledger`); the rest is the same report.
    const { report: cli } = await settledAudit(accountId);
    const { ledger: _ledger, ...replayed } = cli;
    // The projections' positions are where each stood at that moment: the service's own seal (every
    // second here) may move them on between the two reads, never back.
    const positions = ({ storePosition, usageProjectionPosition, keyProjectionPosition }: Report["verification"]) => [
      storePosition,
      usageProjectionPosition,
      keyProjectionPosition,
    ];
    const [apiPositions, cliPositions] = [positions(reply.json.data.verification), positions(cli.verification)];
    apiPositions.forEach((position, i) => expect(position).toBeLessThanOrEqual(cliPositions[i]!));
    const withoutMoment = (report: Omit<Report, "ledger">) => ({
      ...report,
      generatedAt: "",
      verification: { ...report.verification, storePosition: 0, usageProjectionPosition: 0, keyProjectionPosition: 0 },
    });
    expect(withoutMoment(reply.json.data)).toEqual(withoutMoment(replayed));

    const ranged = await service.client.request("GET", `${url}?from=2000-01-01&to=2000-01-31`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(ranged.status).toBe(200);
    expect(ranged.json.data.history).toEqual([]);
    const badDate = await service.client.request("GET", `${url}?from=yesterday`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(badDate.status).toBe(400);
    expect(badDate.json.error.code).toBe("INVALID_REQUEST");
    const unknown = await service.client.request("GET", "/api/audit/accounts/acc_nobody", { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(unknown.status).toBe(404);

    const { keys } = await provisionAccount(service.env, "free");
    for (const headers of [{}, { Authorization: `Bearer ${keys[0]!.key}` }, { Authorization: `Bearer ${OPERATOR_TOKEN}x` }]) {
      const refused = await service.client.request("GET", url, { headers });
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe("UNAUTHORIZED");
    }
    const documented = await service.client.request("GET", "/api/openapi.json");
    expect(documented.json.paths["/audit/accounts/{accountId}"].get.security).toEqual([{ operatorToken: [] }]);
  });

  it("replays an account's jobs and its webhook endpoints' lifecycle, with who acted", async () => {
    const { accountId: account, keys } = await provisionAccount(service.env, "pro");
    const key = keys[0]!.key;
    const keyId = keys[0]!.id;
    const call = (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) =>
      service.client.request(method, `/api${route}`, { key, headers, ...(body === undefined ? {} : { body }) });
    // One endpoint made, rotated and deleted by the key; another on a closed port, which the service disables.
    const kept = await call("POST", "/webhooks", { url: "http://127.0.0.1:9/kept" });
    expect(kept.status).toBe(201);
    expect((await call("POST", `/webhooks/${kept.json.data.id}/rotate-secret`)).status).toBe(200);
    expect((await call("DELETE", `/webhooks/${kept.json.data.id}`)).status).toBe(200);
    const failing = await call("POST", "/webhooks", { url: "http://127.0.0.1:9/failing" });
    expect(failing.status).toBe(201);

    // Two jobs that succeed, one whose "image" is no image and fails when it runs.
    const ASYNC = { Prefer: "respond-async" };
    const accepted = [
      await call("POST", "/generate", { image, template: "instagram-square", templateType: "social" }, ASYNC),
      await call("POST", "/generate", { image, template: "instagram-square", templateType: "social" }, ASYNC),
      await call(
        "POST",
        "/generate",
        { image: Buffer.from("no image at all").toString("base64"), template: "instagram-square", templateType: "social" },
        ASYNC,
      ),
    ];
    expect(accepted.map((reply) => reply.status)).toEqual([202, 202, 202]);
    const ended = async (location: string) => {
      for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 200))) {
        const job = (await service.client.request("GET", location, { key })).json.data;
        if (job.status === "succeeded" || job.status === "failed") return job.status as string;
      }
      return "unfinished";
    };
    expect(await Promise.all(accepted.map((reply) => ended(reply.headers["location"]!)))).toEqual(["succeeded", "succeeded", "failed"]);
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 250))) {
      const listed = await call("GET", "/webhooks");
      if (listed.json.data.webhooks.some((endpoint: { status: string }) => endpoint.status === "disabled")) break;
    }

    let report = (await settledAudit(account)).report;
    for (const until = Date.now() + 10_000; !report.history.some((entry) => entry.type === "WebhookDisabled") && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      report = (await settledAudit(account)).report;
    }
    expect(report.ok).toBe(true);
    expect(report.jobs).toEqual({ accepted: 3, succeeded: 2, failed: 1, unitsCharged: 2, unitsReleased: 1 });
    const entries = (type: string) => report.history.filter((entry) => entry.type === type);
    expect([entries("JobAccepted"), entries("JobStarted"), entries("JobSucceeded"), entries("JobFailed")].map((found) => found.length)).toEqual([3, 3, 2, 1]);
    expect(entries("JobProgressed")).toEqual([]);
    // A job's events name its key, its reservation's request and its operation; the key accepted it, the service's runner claimed it.
    const jobEntries = report.history.filter((entry) => entry.type.startsWith("Job"));
    expect(jobEntries.every((entry) => entry.keyId === keyId && entry.requestId !== null && entry.operation === "generate")).toBe(true);
    expect(entries("JobAccepted").every((entry) => entry.actor?.kind === "api-key" && entry.actor.keyId === keyId)).toBe(true);
    expect(entries("JobStarted").every((entry) => entry.actor?.kind === "service")).toBe(true);
    // The outcome is recorded on the key's behalf, as a synchronous call's charge is.
    expect([...entries("JobSucceeded"), ...entries("JobFailed")].every((entry) => entry.actor?.kind === "api-key" && entry.actor.keyId === keyId)).toBe(true);
    expect(entries("JobFailed")[0]).toMatchObject({ what: expect.stringContaining("failed (INVALID_IMAGE), 1 unit released") });
    // The endpoints' lifecycle: the key made, rotated and deleted; the service disabled the failing one.
    expect(["WebhookAdded", "WebhookSecretRotated", "WebhookDeleted", "WebhookDisabled"].map((type) => entries(type).length)).toEqual([2, 1, 1, 1]);
    for (const type of ["WebhookAdded", "WebhookSecretRotated", "WebhookDeleted"]) {
      expect(entries(type).every((entry) => entry.actor?.kind === "api-key" && entry.actor.keyId === keyId)).toBe(true);
    }
    expect(entries("WebhookDisabled")[0]).toMatchObject({
      actor: { kind: "service" },
      what: expect.stringContaining(`webhook ${failing.json.data.id} disabled`),
    });
    // The job's units are the quota ledger's: charged through it, once.
    expect(report.totals).toMatchObject({ committed: 2, released: 1 });

    const text = await audit(account);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Jobs: 3 accepted, 2 succeeded (2 unit(s) charged), 1 failed (1 unit(s) released)");
    expect(text.stdout).toContain(`webhook ${kept.json.data.id} secret rotated`);
  }, 90_000);

  it("exits non-zero and names the difference once a projection row is corrupted by hand", async () => {
    // The running service writes this file too (its projections): wait for its lock as it waits for ours.
    const db = new DatabaseSync(path.join(service.dataDir, "projections.sqlite"), { timeout: 5_000 });
    try {
      db.prepare("UPDATE usage SET committed = committed - 1 WHERE account_id = ? AND key_id = ?").run(accountId, keyIds[1]!);
      db.prepare("UPDATE api_keys SET revoked_at = NULL WHERE key_id = ?").run(keyIds[0]!);
    } finally {
      db.close();
    }
    const run = await audit(accountId);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain("Result: 2 DIFFERENCE(S)");
    expect(run.stderr).toMatch(new RegExp(`usage projection: usage \\d{4}-\\d{2} generate ${keyIds[1]} committed replayed 20, recorded 19`));
    expect(run.stderr).toMatch(new RegExp(`key projection: key ${keyIds[0]} revoked replayed "[^"]+", recorded null`));
    const json = JSON.parse((await audit(accountId, "--json")).stdout) as Report;
    expect(json.ok).toBe(false);
    expect(json.verification.differences.map((d) => [d.source, d.field])).toEqual([
      ["usage projection", "committed"],
      ["key projection", "revoked"],
    ]);
  });

  it("keeps sealing while nothing changes, and re-seals a head whose tail was cut together with the seals covering it", async () => {
    const { accountId: account, keys } = await provisionAccount(service.env, "free", 2);
    expect((await itsctl(service.env, ["key", "delete", "--account", account, "--key", keys[1]!.id])).code).toBe(0);
    const stream = `account-${account}`;
    const exported = async () =>
      JSON.parse((await itsctl(service.env, ["ledger", "export"])).stdout) as { sealRevision: number; heads: Array<{ stream: string; revision: number }> };
    const until = async (done: (seal: Awaited<ReturnType<typeof exported>>) => boolean) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const seal = await exported();
        if (done(seal) || Date.now() > deadline) return seal;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };
    const covering = await until((seal) => seal.heads.some((head) => head.stream === stream && head.revision === 3));
    expect(covering.heads).toContainEqual(expect.objectContaining({ stream, revision: 3 }));
    // Seals keep coming though nothing changed: the audit reads time from them.
    expect((await until((seal) => seal.sealRevision > covering.sealRevision)).sealRevision).toBeGreaterThan(covering.sealRevision);

    // The revocation cut, and with it every seal since it was written, by hand while the service runs.
    const db = new DatabaseSync(path.join(service.dataDir, "events.sqlite"), { timeout: 5_000 });
    try {
      db.exec(`BEGIN;
        DELETE FROM events WHERE stream_name = 'ledger-seals' AND global_position > (SELECT global_position FROM events WHERE stream_name = '${stream}' AND stream_revision = 3);
        DELETE FROM events WHERE stream_name = '${stream}' AND stream_revision = 3;
        COMMIT;`);
    } finally {
      db.close();
    }
    // The service's sealer still knows the head it read, and seals it again.
    const deadline = Date.now() + 10_000;
    let audited = await itsctl(service.env, ["audit", "--verify-only"]);
    while (audited.code === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      audited = await itsctl(service.env, ["audit", "--verify-only"]);
    }
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain(`DAMAGE in stream ${stream} at revision 3: tail cut (sealed at revision 3, the stream ends at 2)`);
  });
});
