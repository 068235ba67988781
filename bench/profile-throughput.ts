import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { provisionAccount, startService } from "../test/support/service-process.ts";
import { type LoadResult, loadTest } from "./support/autocannon-run.ts";

/**
 * GET /api/user/profile over HTTPS with keep-alive, full stack (key check, rate limit, event
 * store read, JSON logs) against a bare Koa HTTPS handler with the same certificate, in one run.
 * Two more stacks split the gap: the bare handler behind nothing but the key's hash check, and the
 * service's keyless /healthz, which passes only its global middleware (request id, access log,
 * security headers). Per-request costs add, so together they bound any keyed route of the service.
 * The rate override keeps every request under the limit, so every request does the full work.
 * Usage: node bench/profile-throughput.ts [seconds per run, default 10]
 */
const seconds = Number(process.argv[2] ?? 10);
const connections = 16;
const ROOT = path.resolve(import.meta.dirname, "..");

const service = await startService({ env: { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_PER_MINUTE: "1000000000" } });
const { keys } = await provisionAccount(service.env, "pro");
const ca = fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem"));

const bare = spawn(
  process.execPath,
  [
    "bench/support/bare-koa-server.ts",
    path.join(service.dataDir, "tls", "self-signed-cert.pem"),
    path.join(service.dataDir, "tls", "self-signed-key.pem"),
    keys[0]!.key,
  ],
  {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const barePort = await new Promise<number>((resolve) =>
  bare.stdout!.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { httpsPort: number }).httpsPort)),
);

const authorization = { Authorization: `Bearer ${keys[0]!.key}` };
const stacks = {
  bare: (runSeconds: number) => loadTest({ url: `https://127.0.0.1:${barePort}/`, connections, seconds: runSeconds, ca }),
  keyed: (runSeconds: number) => loadTest({ url: `https://127.0.0.1:${barePort}/keyed`, headers: authorization, connections, seconds: runSeconds, ca }),
  healthz: (runSeconds: number) => loadTest({ url: `https://127.0.0.1:${service.httpsPort}/healthz`, connections, seconds: runSeconds, ca }),
  full: (runSeconds: number) =>
    loadTest({ url: `https://127.0.0.1:${service.httpsPort}/api/user/profile`, headers: authorization, connections, seconds: runSeconds, ca }),
};
type Round = Record<keyof typeof stacks, LoadResult>;

// Warm each (JIT, TLS session setup), then alternate so drift on a shared machine hits all alike.
for (const run of Object.values(stacks)) await run(2);
const runs: Round[] = [];
for (let round = 0; round < 2; round++) {
  runs.push({ bare: await stacks.bare(seconds), keyed: await stacks.keyed(seconds), healthz: await stacks.healthz(seconds), full: await stacks.full(seconds) });
}

bare.kill();
await service.stop();

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const rps = (pick: (r: Round) => LoadResult) => mean(runs.map((r) => pick(r).requestsPerSecond));
const row = (name: string, pick: (r: Round) => LoadResult) => ({
  stack: name,
  "req/s": Math.round(rps(pick)),
  "p50 ms": mean(runs.map((r) => pick(r).p50Ms)),
  "p99 ms": mean(runs.map((r) => pick(r).p99Ms)),
  "non-2xx": runs.reduce((n, r) => n + pick(r).non2xx, 0),
  errors: runs.reduce((n, r) => n + pick(r).errors, 0),
});
console.log(`GET /api/user/profile, HTTPS keep-alive, ${connections} connections, 2 × ${seconds} s per stack`);
console.table([
  row("bare Koa HTTPS", (r) => r.bare),
  row("bare + key hash check", (r) => r.keyed),
  row("service /healthz (no key)", (r) => r.healthz),
  row("full service", (r) => r.full),
]);
const ratio = (pick: (r: Round) => LoadResult) => rps(pick) / rps((r) => r.bare);
// Time per request adds up: 1/bound = 1/keyed + 1/healthz - 1/bare, in units of the bare request.
const bound = 1 / (1 / ratio((r) => r.keyed) + 1 / ratio((r) => r.healthz) - 1);
console.log(`ratio keyed/bare = ${ratio((r) => r.keyed).toFixed(3)}, healthz/bare = ${ratio((r) => r.healthz).toFixed(3)}`);
console.log(`  both costs together bound any keyed route of the service at ${bound.toFixed(3)}`);
console.log(`ratio full/bare = ${ratio((r) => r.full).toFixed(3)} (goal ≥ 0.25)`);
