import { execFileSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import { availableParallelism } from "node:os";
import path from "node:path";
import { grainyPhotoJpeg } from "../test/support/image-fixtures.ts";
import { provisionAccount, rssMiB, startService } from "../test/support/service-process.ts";
import { BENCH_TEMPLATE, measureEngineBaseline } from "./generate-engine.ts";

/**
 * A burst of large images on the real service with default settings (one instance; only the
 * per-key rate limit raised): N concurrent POST /api/generate of a 3000×2000 JPEG, all sent at
 * once. Reports statuses, throughput, p50/p95 and the service's RSS above idle, against the same
 * engine called in-process (2 × cores in flight: its full pace), measured in the same run. Then two
 * floods of M requests show the refusals, 503 with Retry-After answered from the headers: one whose
 * clients send `Expect: 100-continue` (as curl does for large bodies), answered before a byte of
 * their body is sent, and one whose clients send their body at once, as most do (the service answers
 * before reading it, then drops what still arrives, so that the client reads the 503 instead of a
 * reset connection).
 * Usage: node bench/burst.ts [N, default 120] [M, default 1000]
 */
const burst = Number(process.argv[2] ?? 120);
const flood = Number(process.argv[3] ?? 1000);

const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

const service = await startService({ env: { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_PER_MINUTE: "1000000000" } });
const { keys } = await provisionAccount(service.env, "enterprise");
const payload = Buffer.from(JSON.stringify({ image: (await grainyPhotoJpeg()).toString("base64"), ...BENCH_TEMPLATE }));
const ca = fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem"));

interface Outcome {
  readonly status: number | string;
  readonly ms: number;
  readonly retryAfter: string | undefined;
  /** Whether the response came before a byte of the body had been sent. */
  readonly beforeBodySent: boolean;
}

/**
 * One POST on its own connection: the body sent at once as most clients do, or, with
 * `expectContinue`, only once the service answers 100 Continue.
 */
const post = (expectContinue: boolean): Promise<Outcome> =>
  new Promise((resolve) => {
    const started = performance.now();
    let bodySent = false;
    const req = https.request(`https://127.0.0.1:${service.httpsPort}/api/generate`, {
      method: "POST",
      ca,
      agent: false,
      headers: {
        Authorization: `Bearer ${keys[0]!.key}`,
        "Content-Type": "application/json",
        "Content-Length": String(payload.length),
        ...(expectContinue ? { Expect: "100-continue" } : {}),
      },
    });
    const send = () => {
      bodySent = true;
      req.end(payload);
    };
    req.on("continue", send);
    req.on("response", (res) => {
      const beforeBodySent = !bodySent;
      res.resume();
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, retryAfter: res.headers["retry-after"], beforeBodySent });
        req.destroy();
      });
    });
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ status: `connection error ${error.code ?? error.message}`, ms: performance.now() - started, retryAfter: undefined, beforeBodySent: false }),
    );
    if (!expectContinue) send();
  });

/** Sends `count` requests at once, sampling the service's RSS until all are answered. */
const fire = async (count: number, expectContinue = false) => {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(service.pid))), 20);
  const started = performance.now();
  const outcomes = await Promise.all(Array.from({ length: count }, () => post(expectContinue)));
  const elapsedMs = performance.now() - started;
  clearInterval(sampler);
  return { outcomes, elapsedMs, peakMiB: Math.max(peak, rssMiB(service.pid)) };
};

const summary = (label: string, count: number, run: Awaited<ReturnType<typeof fire>>, idle: number) => {
  const ok = run.outcomes.filter((o) => o.status === 200);
  const sorted = ok.map((o) => o.ms).sort((a, b) => a - b);
  const statuses = new Map<string, number>();
  for (const o of run.outcomes) statuses.set(String(o.status), (statuses.get(String(o.status)) ?? 0) + 1);
  const refused = run.outcomes.filter((o) => o.status === 503);
  return {
    burst: `${label} × ${count}`,
    statuses: [...statuses].map(([status, n]) => `${n}×${status}`).join(" "),
    "ok per s": Number(((ok.length * 1000) / run.elapsedMs).toFixed(2)),
    "p50 ms": Math.round(percentile(sorted, 0.5)),
    "p95 ms": Math.round(percentile(sorted, 0.95)),
    "RSS above idle MiB": Math.round(run.peakMiB - idle),
    "503 with Retry-After": refused.filter((o) => o.retryAfter !== undefined).length,
    "503 before body sent": refused.filter((o) => o.beforeBodySent).length,
  };
};

console.log(`before: ${uptime()}`);
// Warm the engines and the models, then take the idle footprint.
await fire(2);
await new Promise((resolve) => setTimeout(resolve, 2_000));
const idle = rssMiB(service.pid);
const large = await fire(burst);
console.log(`${burst}-burst: ${JSON.stringify(summary("HTTPS", burst, large, idle))}`);
// The engine's own pace, with enough in flight to keep every slot busy (as the generate benchmark does).
const baseline = await measureEngineBaseline({ concurrency: 2 * availableParallelism(), durationMs: Math.max(5_000, large.elapsedMs), warmupMs: 1_000 });
await new Promise((resolve) => setTimeout(resolve, 2_000));
const idleAfter = rssMiB(service.pid);
const flooded = await fire(flood, true);
await new Promise((resolve) => setTimeout(resolve, 2_000));
const idleBeforeBodies = rssMiB(service.pid);
const floodedWithBodies = await fire(flood);
await service.stop();

console.log(
  `POST /api/generate ${BENCH_TEMPLATE.templateType}/${BENCH_TEMPLATE.template}, 3000×2000 JPEG (${payload.length} bytes of JSON), ` +
    `default settings; idle RSS ${idle.toFixed(0)} MiB (${idleAfter.toFixed(0)} MiB before the flood)`,
);
console.table([
  summary("HTTPS", burst, large, idle),
  {
    burst: `in-process engine, ${baseline.concurrency} in flight`,
    statuses: `${baseline.completed}×ok`,
    "ok per s": baseline.perSecond,
    "p50 ms": baseline.latencyMs.p50,
    "p95 ms": baseline.latencyMs.p95,
  },
  summary("HTTPS, Expect: 100-continue", flood, flooded, idleAfter),
  summary("HTTPS, body at once", flood, floodedWithBodies, idleBeforeBodies),
]);
const largeOk = large.outcomes.filter((o) => o.status === 200).length;
console.log(
  `ratio HTTPS burst / in-process = ${((largeOk * 1000) / large.elapsedMs / baseline.perSecond).toFixed(3)}; ` +
    `${burst}-burst peak RSS idle + ${(large.peakMiB - idle).toFixed(0)} MiB (goal: all ${burst} × 200 within idle + 1536 MiB)`,
);
console.log(`after: ${uptime()}`);
