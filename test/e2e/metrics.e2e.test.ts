import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainRequest } from "../support/https-client.ts";
import { photoJpeg } from "../support/image-fixtures.ts";
import { metricsPortOf, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 16: GET /metrics on its own plain-HTTP port (METRICS_PORT), scraped while real HTTPS
 * traffic runs through the real service process; the counters move, labels carry route templates,
 * and `promtool check metrics` accepts the scrape.
 */
const promtool = (() => {
  try {
    execFileSync("promtool", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!promtool) console.warn("[metrics] promtool check SKIPPED — no promtool binary (Debian: apt-get install -y --no-install-recommends prometheus)");

let service: ServiceProcess;
let metricsPort: number;

beforeAll(async () => {
  // Two image slots and one waiting place: a burst of large images is refused in part (503).
  service = await startService({ env: { METRICS_PORT: "0", ENGINE_CONCURRENCY: "2", ENGINE_QUEUE_LENGTH: "1" } });
  metricsPort = metricsPortOf(service);
});
afterAll(async () => service?.stop());

const scrape = async (): Promise<string> => {
  const reply = await plainRequest(metricsPort, "GET", "/metrics");
  expect(reply.status).toBe(200);
  expect(reply.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return reply.body.toString();
};

const LABEL = /[{,](\w+)="((?:[^"\\]|\\.)*)"/g;

/** The value of the sample `name` whose labels include `labels`; 0 when there is none yet. */
const sample = (text: string, name: string, labels: Record<string, string> = {}): number => {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const braceEnd = line.lastIndexOf("}");
    const found = Object.fromEntries([...line.slice(0, Math.max(0, braceEnd)).matchAll(LABEL)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
};

/** Every label value in the scrape. */
const labelValues = (text: string): Set<string> =>
  new Set(
    text
      .split("\n")
      .filter((line) => !line.startsWith("#"))
      .flatMap((line) => [...line.matchAll(LABEL)].map((m) => m[2]!)),
  );

const requestsOf = (text: string, method: string, route: string, status: number) =>
  sample(text, "http_server_request_duration_seconds_count", { method, route, status_code: String(status) });

describe("GET /metrics", () => {
  it("is served on the metrics port only: not on the HTTPS port, and only /metrics", async () => {
    expect(metricsPort).toBeGreaterThan(0);
    expect(metricsPort).not.toBe(service.httpsPort);
    expect((await service.client.request("GET", "/metrics")).status).toBe(404);
    expect((await plainRequest(metricsPort, "GET", "/api/user/profile")).status).toBe(404);
    expect((await plainRequest(metricsPort, "POST", "/metrics", "{}")).status).toBe(405);
  });

  it("moves with real HTTPS traffic, labels routes by template, and passes promtool", async () => {
    const account = await provisionAccount(service.env, "pro");
    const key = account.keys[0]!.key;
    const before = await scrape();

    for (let i = 0; i < 3; i++) expect((await service.client.request("GET", "/api/user/profile", { key })).status).toBe(200);
    const wrongKey = `its_${account.keys[0]!.id}_${"x".repeat(43)}`;
    for (let i = 0; i < 2; i++) expect((await service.client.request("GET", "/api/user/profile", { key: wrongKey })).status).toBe(401);
    const good = await service.client.request("POST", "/api/generate", {
      key,
      body: { image: (await photoJpeg(400, 300)).toString("base64"), template: "instagram-square", templateType: "social" },
    });
    expect(good.status).toBe(200);
    const resultId = new URL(good.json.data.resultUrl as string).pathname.split("/").at(-1)!;
    expect((await service.client.get(good.json.data.resultUrl as string)).status).toBe(200);
    // Valid JSON, not an image: reserved, failed in decoding, released — a failed transformation.
    const bad = await service.client.request("POST", "/api/generate", {
      key,
      body: { image: Buffer.from("certainly not an image").toString("base64"), template: "instagram-square", templateType: "social" },
    });
    expect(bad.status).toBe(422);
    expect((await service.client.request("GET", `/api/no/such/${resultId}`)).status).toBe(404);
    // A console invitation link: its token sits in the path and must not reach a label.
    const token = `${account.accountId}.${"a".repeat(16)}.${"s".repeat(43)}`;
    expect((await service.client.request("GET", `/console/invite/${token}`)).status).toBe(404);
    // 6 tokens of 15 are spent: drain the bucket until it refuses.
    let allowed = 0;
    let refused = 0;
    while (refused === 0 && allowed < 20) {
      const reply = await service.client.request("GET", "/api/templates", { key });
      if (reply.status === 200) allowed++;
      else if (reply.status === 429) refused++;
    }
    expect(refused).toBe(1);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);

    expect(requestsOf(after, "GET", "/api/user/profile", 200) - requestsOf(before, "GET", "/api/user/profile", 200)).toBe(3);
    expect(requestsOf(after, "GET", "/api/user/profile", 401) - requestsOf(before, "GET", "/api/user/profile", 401)).toBe(2);
    expect(requestsOf(after, "POST", "/api/generate", 200) - requestsOf(before, "POST", "/api/generate", 200)).toBe(1);
    expect(requestsOf(after, "POST", "/api/generate", 422) - requestsOf(before, "POST", "/api/generate", 422)).toBe(1);
    expect(requestsOf(after, "GET", "/api/results/:resultId", 200) - requestsOf(before, "GET", "/api/results/:resultId", 200)).toBe(1);
    expect(requestsOf(after, "GET", "unmatched", 404) - requestsOf(before, "GET", "unmatched", 404)).toBe(1);
    expect(requestsOf(after, "GET", "/console/invite/:token", 404) - requestsOf(before, "GET", "/console/invite/:token", 404)).toBe(1);
    expect(requestsOf(after, "GET", "/api/templates", 200) - requestsOf(before, "GET", "/api/templates", 200)).toBe(allowed);
    expect(requestsOf(after, "GET", "/api/templates", 429) - requestsOf(before, "GET", "/api/templates", 429)).toBe(1);
    expect(sample(after, "http_server_request_duration_seconds_bucket", { route: "/api/user/profile", status_code: "200", le: "+Inf" })).toBeGreaterThanOrEqual(
      3,
    );

    expect(delta("its_transformations_total", { operation: "generate", outcome: "succeeded" })).toBe(1);
    expect(delta("its_transformations_total", { operation: "generate", outcome: "failed" })).toBe(1);
    expect(delta("its_rate_limit_refusals_total", { bucket: "api_key" })).toBe(1);
    // Reserve, request, commit, complete; reserve, request, release, fail; the account and its key.
    expect(delta("its_event_store_append_duration_seconds_count", { outcome: "ok" })).toBeGreaterThanOrEqual(8);
    expect(sample(after, "its_event_store_conflicts_total")).toBe(0);
    expect(sample(after, "its_engine_capacity", { engine: "image" })).toBe(2);
    expect(sample(after, "its_engine_capacity", { engine: "tryon" })).toBe(1);
    expect(delta("its_engine_job_duration_seconds_count", { engine: "image", outcome: "ok" })).toBe(1);
    expect(sample(after, "its_engine_queue_depth", { engine: "image" })).toBe(0);
    expect(after).toMatch(/^# TYPE its_engine_admission_refusals_total counter$/m);
    for (const projection of ["usage", "keys"]) expect(after).toMatch(new RegExp(`^its_projection_lag_events\\{projection="${projection}"\\} \\d+$`, "m"));
    expect(after).toMatch(/^its_event_forwarder_lag_events \d+$/m);
    expect(after).toMatch(/^its_event_forwarder_lag_seconds [\d.e+-]+$/m);
    for (const name of ["process_resident_memory_bytes", "nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes", "process_cpu_seconds_total"]) {
      expect(after).toMatch(new RegExp(`^${name} `, "m"));
    }
    expect(after).toMatch(/^nodejs_gc_duration_seconds_count\{kind="\w+"\}/m);

    // Nothing a client sent or owns becomes a label: no key, key id, account id, email, result id or raw path.
    const values = labelValues(after);
    const secrets = [key, wrongKey, account.keys[0]!.id, account.accountId, resultId, `/api/no/such/${resultId}`, "s".repeat(43)];
    for (const secret of secrets) expect([...values].filter((value) => value.includes(secret))).toEqual([]);
    expect([...values].filter((value) => value.includes("@"))).toEqual([]);

    // Every series the Grafana dashboard queries exists.
    const dashboard = fs.readFileSync(path.resolve(import.meta.dirname, "../../ops/grafana/dashboards/its-dashboard.json"), "utf8");
    const queried = new Set([...dashboard.matchAll(/(?:its|http_server|process|nodejs)_[a-z0-9_]+/g)].map((m) => m[0]));
    expect(queried.size).toBeGreaterThan(15);
    for (const name of queried) expect(after, name).toMatch(new RegExp(`^${name}[{ ]`, "m"));
    expect(sample(after, "its_quota_refusals_total", { operation: "virtual-tryon" })).toBe(0);

    if (promtool) {
      const checked = spawnSync("promtool", ["check", "metrics"], { input: after, encoding: "utf8" });
      expect({ status: checked.status, output: `${checked.stdout}${checked.stderr}` }).toEqual({ status: 0, output: "" });
    }
  });
  it("counts quota refusals and engine admission refusals as the API answers them", async () => {
    // A free account's 50 transformations, spread over four keys (a key's burst is 15), then one more.
    const free = await provisionAccount(service.env, "free", 4);
    const small = (await photoJpeg(64, 48)).toString("base64");
    const generate = (key: string, image: string) =>
      service.client.request("POST", "/api/generate", { key, body: { image, template: "instagram-square", templateType: "social" } });
    const before = await scrape();
    const statuses: Array<number> = [];
    // One at a time: the engine's two slots and one waiting place are not what this part tests.
    for (let i = 0; i < 51; i++) statuses.push((await generate(free.keys[i % 4]!.key, small)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.at(-1)).toBe(429);

    // Twelve large images at once against two slots and one waiting place.
    const pro = await provisionAccount(service.env, "pro");
    const large = (await photoJpeg(2400, 1800)).toString("base64");
    const replies = await Promise.all(Array.from({ length: 12 }, () => generate(pro.keys[0]!.key, large)));
    const busy = replies.filter((reply) => reply.status === 503 && String(reply.json?.error?.message).includes("engine is at capacity"));
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.length + replies.filter((reply) => reply.status === 200).length).toBe(12);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta("its_quota_refusals_total", { operation: "generate" })).toBe(1);
    expect(delta("its_transformations_total", { operation: "generate", outcome: "succeeded" })).toBe(50 + 12 - busy.length);
    expect(delta("its_engine_admission_refusals_total", { engine: "image", reason: "queue_full" })).toBe(busy.length);
    expect(delta("http_server_request_duration_seconds_count", { method: "POST", route: "/api/generate", status_code: "503" })).toBe(busy.length);
    expect(sample(after, "its_engine_queue_depth", { engine: "image" })).toBe(0);
  });
});
