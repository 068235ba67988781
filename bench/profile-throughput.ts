import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadTest, type LoadResult } from "./support/autocannon-run.ts";
import { provisionAccount, startService } from "../test/support/service-process.ts";

/**
 * GET /api/user/profile over HTTPS with keep-alive, full stack (key check, rate limit, event
 * store read, JSON logs) against a bare Koa HTTPS handler with the same certificate, in one run.
 * The rate override keeps every request under the limit, so every request does the full work.
 * Usage: node bench/profile-throughput.ts [seconds per run, default 10]
 */
const seconds = Number(process.argv[2] ?? 10);
const connections = 16;
const ROOT = path.resolve(import.meta.dirname, "..");

const service = await startService({ env: { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_PER_MINUTE: "1000000000" } });
const { keys } = await provisionAccount(service.env, "pro");
const ca = fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem"));

const bare = spawn(process.execPath, ["bench/support/bare-koa-server.ts", path.join(service.dataDir, "tls", "self-signed-cert.pem"), path.join(service.dataDir, "tls", "self-signed-key.pem")], {
  cwd: ROOT,
  stdio: ["ignore", "pipe", "inherit"],
});
const barePort = await new Promise<number>((resolve) =>
  bare.stdout!.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { httpsPort: number }).httpsPort)),
);

const full = () =>
  loadTest({ url: `https://127.0.0.1:${service.httpsPort}/api/user/profile`, headers: { Authorization: `Bearer ${keys[0]!.key}` }, connections, seconds, ca });
const baseline = () => loadTest({ url: `https://127.0.0.1:${barePort}/`, connections, seconds, ca });

// Warm both (JIT, TLS session setup), then alternate so drift on a shared machine hits both alike.
await loadTest({ url: `https://127.0.0.1:${barePort}/`, connections, seconds: 2, ca });
await loadTest({ url: `https://127.0.0.1:${service.httpsPort}/api/user/profile`, headers: { Authorization: `Bearer ${keys[0]!.key}` }, connections, seconds: 2, ca });
const runs: Array<{ bare: LoadResult; full: LoadResult }> = [];
for (let round = 0; round < 2; round++) runs.push({ bare: await baseline(), full: await full() });

bare.kill();
await service.stop();

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const bareRps = mean(runs.map((r) => r.bare.requestsPerSecond));
const fullRps = mean(runs.map((r) => r.full.requestsPerSecond));
const row = (name: string, pick: (r: { bare: LoadResult; full: LoadResult }) => LoadResult) => ({
  stack: name,
  "req/s": Math.round(mean(runs.map((r) => pick(r).requestsPerSecond))),
  "p50 ms": mean(runs.map((r) => pick(r).p50Ms)),
  "p99 ms": mean(runs.map((r) => pick(r).p99Ms)),
  "non-2xx": runs.reduce((n, r) => n + pick(r).non2xx, 0),
  errors: runs.reduce((n, r) => n + pick(r).errors, 0),
});
console.log(`GET /api/user/profile, HTTPS keep-alive, ${connections} connections, 2 × ${seconds} s per stack`);
console.table([row("bare Koa HTTPS", (r) => r.bare), row("full service", (r) => r.full)]);
console.log(`ratio full/bare = ${(fullRps / bareRps).toFixed(3)} (goal ≥ 0.6)`);
