import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdfOf } from "../support/document-fixtures.ts";
import { photoJpeg, photoPng } from "../support/image-fixtures.ts";
import { itsctl, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 44: an auditor's replayer written from docs/events.md alone (test/support/independent-replayer.mjs,
 * plain SQL, nothing of src/) reads the store of a varied history made through the real service and
 * itsctl, and its numbers equal `itsctl audit`'s for every account.
 */
const run = promisify(execFile);
let service: ServiceProcess;
let image: string;

beforeAll(async () => {
  // Many requests a second on one key: the rate limit is not what this suite is about.
  service = await startService({ env: { RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "1000" } });
  image = (await photoPng(48, 32)).toString("base64");
});
afterAll(async () => service?.stop());

interface Counts {
  reserved: number;
  committed: number;
  released: number;
  refusedRequests: number;
  refusedUnits: number;
}
type Line = Counts & { period: string; operation: string; keyId: string };
interface Key {
  keyId: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}
interface AuditReport {
  account: { plan: string };
  history: Array<{ type: string; at: string; what: string }>;
  totals: Counts & { lines: Array<Line> };
  keys: Array<Key>;
  verification: { notes: Array<string> };
}
interface Replayed {
  plans: Array<{ plan: string; at: string }>;
  keys: Array<Key>;
  totals: Counts;
  lines: Array<Line>;
}

const generate = (key: string, template = "instagram-square", headers: Record<string, string> = {}) =>
  service.client.request("POST", "/api/generate", { key, headers, body: { image, template, templateType: "social" } });
const ocr = async (key: string, pages: number) =>
  service.client.request("POST", "/api/ocr", { key, body: { image: Buffer.from(await pdfOf(pages, {}, 36)).toString("base64"), language: "eng" } });
const ok = async (command: Array<string>) => {
  const done = await itsctl(service.env, command);
  expect(done.code, done.stderr).toBe(0);
  return done.stdout;
};

/** The audit once the projections have applied everything of the account (they run in the service, a moment behind). */
const settledAudit = async (accountId: string): Promise<AuditReport> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const report = JSON.parse((await itsctl(service.env, ["audit", "--account", accountId, "--json"])).stdout) as AuditReport;
    if (report.verification.notes.length === 0 || Date.now() > deadline) return report;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

const byLine = (a: Line, b: Line) => `${a.period} ${a.operation} ${a.keyId}`.localeCompare(`${b.period} ${b.operation} ${b.keyId}`);
const byKey = (a: Key, b: Key) => a.keyId.localeCompare(b.keyId);

describe("an independent replayer of the event store", () => {
  it("agrees with itsctl audit on every account's totals, per-key usage, keys and plans", async () => {
    // Pro: two keys, template variants, an idempotent repeat, a two-page document, a failed upload, a key deleted, then a plan change mid-month.
    const pro = await provisionAccount(service.env, "pro", 2);
    const [first, second] = [pro.keys[0]!, pro.keys[1]!];
    for (const template of ["instagram-square", "twitter-post", "youtube-thumbnail"]) expect((await generate(first.key, template)).status).toBe(200);
    const once = { "Idempotency-Key": "replay-once" };
    expect((await generate(second.key, "facebook-post", once)).status).toBe(200);
    const repeat = await generate(second.key, "facebook-post", once);
    expect(repeat.headers["idempotent-replayed"]).toBe("true");
    expect((await ocr(second.key, 2)).status).toBe(200);
    const jpeg = await photoJpeg(64, 48);
    const truncated = { image: jpeg.subarray(0, jpeg.length >> 1).toString("base64"), template: "instagram-square", templateType: "social" };
    expect((await service.client.request("POST", "/api/generate", { key: second.key, body: truncated })).status).toBe(422);
    await ok(["key", "delete", "--account", pro.accountId, "--key", second.id]);
    await ok(["account", "set-plan", "--account", pro.accountId, "--plan", "enterprise"]);
    expect((await generate(first.key, "pinterest-pin")).status).toBe(200);

    // Free: driven past its 50 units, the last refusal a three-page document (one request, three units).
    const free = await provisionAccount(service.env, "free");
    const freeKey = free.keys[0]!.key;
    for (let batch = 0; batch < 7; batch++) {
      const statuses = await Promise.all(Array.from({ length: 7 }, () => generate(freeKey).then((reply) => reply.status)));
      expect(statuses.every((status) => status === 200)).toBe(true);
    }
    expect((await ocr(freeKey, 3)).status).toBe(429);
    expect((await generate(freeKey)).status).toBe(200);
    expect((await generate(freeKey)).status).toBe(429);

    // Enterprise, moved down to pro: a key made, a couple of calls.
    const enterprise = await provisionAccount(service.env, "enterprise");
    expect((await generate(enterprise.keys[0]!.key, "linkedin-banner")).status).toBe(200);
    await ok(["account", "set-plan", "--account", enterprise.accountId, "--plan", "pro"]);
    expect((await generate(enterprise.keys[0]!.key, "instagram-story")).status).toBe(200);

    const audits = await Promise.all([pro, free, enterprise].map(({ accountId }) => settledAudit(accountId)));
    const replayer = path.resolve(import.meta.dirname, "../support/independent-replayer.mjs");
    const { stdout } = await run(process.execPath, [replayer, path.join(service.dataDir, "events.sqlite")]);
    const replayed = JSON.parse(stdout) as Record<string, Replayed>;

    for (const [{ accountId }, audit] of [pro, free, enterprise].map((account, i) => [account, audits[i]!] as const)) {
      const mine = replayed[accountId]!;
      const { lines, ...totals } = audit.totals;
      expect(mine.totals, accountId).toEqual(totals);
      expect([...mine.lines].sort(byLine), accountId).toEqual([...lines].sort(byLine));
      expect([...mine.keys].sort(byKey), accountId).toEqual([...audit.keys].sort(byKey));
      const planEvents = audit.history.filter((entry) => entry.type === "AccountOpened" || entry.type === "AccountPlanChanged");
      expect(
        mine.plans.map(({ plan, at }, i) => ({
          at,
          what: i === 0 ? `account opened on the ${plan} plan` : `plan changed from ${mine.plans[i - 1]!.plan} to ${plan}`,
        })),
      ).toEqual(planEvents.map(({ at, what }) => ({ at, what })));
      expect(mine.plans.at(-1)!.plan).toBe(audit.account.plan);
    }
    // The history is what it was meant to be, not only the same on both sides.
    expect(replayed[free.accountId]!.totals).toEqual({ reserved: 50, committed: 50, released: 0, refusedRequests: 2, refusedUnits: 4 });
    expect(replayed[pro.accountId]!.totals.committed).toBe(7);
    expect(replayed[pro.accountId]!.keys.find((key) => key.keyId === second.id)!.revokedAt).not.toBeNull();
    expect(replayed[pro.accountId]!.plans.map(({ plan }) => plan)).toEqual(["pro", "enterprise"]);

    // Every event type this history stored is in docs/events.md, with every field its payloads hold.
    const document = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/events.md"), "utf8");
    const db = new DatabaseSync(path.join(service.dataDir, "events.sqlite"), { readOnly: true });
    const stored = db.prepare("SELECT type, data FROM events").all() as Array<{ type: string; data: string }>;
    db.close();
    const undocumented = new Set<string>();
    for (const { type, data } of stored) {
      const start = document.indexOf(`\n### ${type}\n`);
      const section = start < 0 ? "" : document.slice(start, document.indexOf("\n### ", start + 1));
      for (const field of start < 0 ? [""] : Object.keys(JSON.parse(data) as object))
        if (!section.includes(`| \`${field}\` |`)) undocumented.add(`${type}.${field}`);
    }
    expect([...undocumented]).toEqual([]);
    expect(new Set(stored.map(({ type }) => type)).size).toBeGreaterThanOrEqual(12);
  });
});
