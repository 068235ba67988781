/**
 * What accepting a job costs (docs/jobs.md), on the real service process over HTTPS:
 *
 * - the 202's latency (p50/p95/p99), one request at a time on a kept-alive connection, for a small
 *   /generate (a 320×200 PNG) and for a 20-page A4 300-dpi PDF /ocr (~10 MB,
 *   test/support/a4-text-document.ts), beside the service's cheapest keyed request
 *   (GET /api/user/profile) and a bare HTTPS handler on the same Node and certificate
 *   (bench/support/bare-koa-server.ts): the floor. The four alternate request by request, so that
 *   load from elsewhere on a shared machine falls on all alike. JOB_CONCURRENCY=1: the accepted jobs
 *   run one at a time meanwhile, as they would behind a busy instance.
 * - what a queued job holds: a second service (JOB_CONCURRENCY=1) whose one runner is held by a
 *   20-page OCR job while `queued` small /generate jobs are accepted behind it; its RSS and its main
 *   heap's live objects (after a full collection, through the inspector) before and after, per job, and
 *   what the data directory grew by (events, projections, the kept bodies), per job.
 *
 * The held job's own memory must not pass for the queue's: the OCR workers are started (a
 * synchronous 2-page document read first) and the held job under way before the first reading.
 *
 *   npm run bench:jobs [samples] [queued]      (defaults 200 and 1000; 0 samples: the memory part only)
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { a4TextDocument } from "../test/support/a4-text-document.ts";
import { HttpsClient } from "../test/support/https-client.ts";
import { photoPng } from "../test/support/image-fixtures.ts";
import { provisionAccount, rssMiB, type ServiceProcess, startService } from "../test/support/service-process.ts";

const samples = Number(process.argv[2] ?? 200);
const queued = Number(process.argv[3] ?? 1000);
const ocrSamples = Math.max(5, Math.round(samples / 10));
const ROOT = path.resolve(import.meta.dirname, "..");
const env = { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_PER_MINUTE: "1000000000", JOB_CONCURRENCY: "1", MAX_QUEUED_JOBS: "1000000" };
const ASYNC = { Prefer: "respond-async" };

const [png, document, twoPages] = await Promise.all([photoPng(320, 200), a4TextDocument(), a4TextDocument(2)]);
const generateBody = Buffer.from(JSON.stringify({ image: png.toString("base64"), template: "instagram-square", templateType: "social" }));
const ocrBody = Buffer.from(JSON.stringify({ image: Buffer.from(document.pdf).toString("base64"), language: "eng" }));

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const timed = async (send: () => Promise<{ status: number }>, expected: number) => {
  const started = performance.now();
  const reply = await send();
  const ms = performance.now() - started;
  if (reply.status !== expected) throw new Error(`expected ${expected}, got ${reply.status}`);
  return ms;
};

// --- Latency ---------------------------------------------------------------------------------
const loadBefore = os.loadavg();
const latencies: Record<string, Array<number>> = {};
if (samples > 0) await measureLatencies();

async function measureLatencies() {
  const service = await startService({ env });
  // A bench that throws leaves no service behind.
  process.on("exit", () => service.exit() === undefined && process.kill(service.pid, "SIGKILL"));
  const key = (await provisionAccount(service.env, "enterprise")).keys[0]!.key;
  const cert = path.join(service.dataDir, "tls", "self-signed-cert.pem");
  const bare = spawn(process.execPath, ["bench/support/bare-koa-server.ts", cert, path.join(service.dataDir, "tls", "self-signed-key.pem")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const barePort = await new Promise<number>((resolve) =>
    bare.stdout!.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { httpsPort: number }).httpsPort)),
  );
  const bareClient = new HttpsClient(`https://127.0.0.1:${barePort}`, fs.readFileSync(cert));
  const client = service.client;

  const sides = {
    "bare HTTPS handler": () => timed(() => bareClient.send("GET", "/"), 200),
    "GET /api/user/profile": () => timed(() => client.send("GET", "/api/user/profile", { key }), 200),
    "POST /generate, 202": () => timed(() => client.send("POST", "/api/generate", { key, headers: ASYNC, body: generateBody }), 202),
  };
  Object.assign(latencies, { ...Object.fromEntries(Object.keys(sides).map((side) => [side, []])), "POST /ocr 20 pages, 202": [] });
  // Warm: JIT, TLS session, the first job's engines.
  for (const send of Object.values(sides)) for (let i = 0; i < 10; i++) await send();
  for (let i = 0; i < samples; i++) {
    for (const [side, send] of Object.entries(sides)) latencies[side]!.push(await send());
    if (i % Math.round(samples / ocrSamples) === 0) {
      latencies["POST /ocr 20 pages, 202"]!.push(await timed(() => client.send("POST", "/api/ocr", { key, headers: ASYNC, body: ocrBody }), 202));
    }
  }
  bare.kill();
  bareClient.agent.destroy();
  await service.stop("SIGKILL");
}

// --- Memory and store per queued job -----------------------------------------------------------
/**
 * The main heap's live objects: a full collection first, asked for through the inspector (the
 * holder runs with --inspect on loopback), then V8's own count, so that no garbage of the requests
 * passes for what the queue holds. The OCR workers' heaps are isolates of their own, not in it.
 */
const heapMiB = async (held: ServiceProcess) => {
  const { webSocketDebuggerUrl } = (
    (await (await fetch(`http://127.0.0.1:${inspectorPort(held)}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>
  )[0]!;
  const socket = new WebSocket(webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", reject);
  });
  let next = 0;
  const call = (method: string) =>
    new Promise<Record<string, number>>((resolve) => {
      const id = ++next;
      const answer = (message: MessageEvent) => {
        const reply = JSON.parse(String(message.data)) as { id?: number; result: Record<string, number> };
        if (reply.id !== id) return;
        socket.removeEventListener("message", answer);
        resolve(reply.result);
      };
      socket.addEventListener("message", answer);
      socket.send(JSON.stringify({ id, method }));
    });
  await call("HeapProfiler.collectGarbage");
  const { usedSize } = await call("Runtime.getHeapUsage");
  socket.close();
  return usedSize! / 2 ** 20;
};
const inspectorPort = (held: ServiceProcess) => Number(/Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//u.exec(held.logs())![1]);
const sizeMiB = (target: string): number => {
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.size / 2 ** 20;
  return fs.readdirSync(target).reduce((sum, entry) => sum + sizeMiB(path.join(target, entry)), 0);
};
const dataSizes = (dir: string) => Object.fromEntries(fs.readdirSync(dir).map((entry) => [entry, sizeMiB(path.join(dir, entry))]));
/** Median of a few readings a second apart: the held OCR job's threads move the RSS. */
const settled = async (held: ServiceProcess) => {
  const rss: Array<number> = [];
  const heap: Array<number> = [];
  for (let i = 0; i < 5; i++) {
    rss.push(rssMiB(held.pid));
    heap.push(await heapMiB(held));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return { rss: percentile(rss, 50), heap: percentile(heap, 50) };
};

// The inspector on loopback, on a port of its own, for the heap figure after a full collection.
const holder = await startService({ env: { ...env, NODE_OPTIONS: "--inspect=127.0.0.1:0" } });
process.on("exit", () => holder.exit() === undefined && process.kill(holder.pid, "SIGKILL"));
// itsctl without the inspector.
const { NODE_OPTIONS: _inspector, ...cliEnv } = holder.env;
const holderKey = (await provisionAccount(cliEnv, "enterprise")).keys[0]!.key;
// Warm the /generate path (its engines, the JIT) with jobs that run at once, and start the OCR workers with a synchronous read.
const warmOcr = await holder.client.send("POST", "/api/ocr", {
  key: holderKey,
  body: { image: Buffer.from(twoPages.pdf).toString("base64"), language: "eng" },
});
if (warmOcr.status !== 200) throw new Error(`the OCR warm-up: ${warmOcr.status}`);
for (let i = 0; i < 20; i++) await holder.client.send("POST", "/api/generate", { key: holderKey, headers: ASYNC, body: generateBody });
await new Promise((resolve) => setTimeout(resolve, 5000));
// The one runner is held by a long document; every job accepted after it waits.
const long = await holder.client.send("POST", "/api/ocr", { key: holderKey, headers: ASYNC, body: ocrBody });
if (long.status !== 202) throw new Error(`the holding job: ${long.status}`);
await new Promise((resolve) => setTimeout(resolve, 8000));
const before = { ...(await settled(holder)), data: dataSizes(holder.dataDir) };
const accepting = performance.now();
for (let i = 0; i < queued; i++) {
  const reply = await holder.client.send("POST", "/api/generate", { key: holderKey, headers: ASYNC, body: generateBody });
  if (reply.status !== 202) throw new Error(`queued job ${i}: ${reply.status}`);
}
const acceptSeconds = (performance.now() - accepting) / 1000;
await new Promise((resolve) => setTimeout(resolve, 3000));
const after = { ...(await settled(holder)), data: dataSizes(holder.dataDir) };
const stillQueued = (await holder.client.send("GET", "/api/jobs?limit=100", { key: holderKey })).json as { data: { jobs: Array<{ status: string }> } };
await holder.stop("SIGKILL");
const loadAfter = os.loadavg();

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
if (samples > 0)
  console.log(`\nJob acceptance: ${samples} samples a side (${latencies["POST /ocr 20 pages, 202"]!.length} of the 20-page /ocr), ${os.cpus().length} cores`);
if (samples > 0)
  console.table(
    Object.entries(latencies).map(([side, values]) => ({
      side,
      n: values.length,
      "p50 ms": round(percentile(values, 50)),
      "p95 ms": round(percentile(values, 95)),
      "p99 ms": round(percentile(values, 99)),
    })),
  );
if (samples > 0) console.log(`20-page PDF body: ${round(ocrBody.length / 2 ** 20)} MiB of JSON (the PDF ${round(document.pdf.length / 2 ** 20)} MiB, base64)`);
console.log(
  `\n${queued} small /generate jobs (a ${round(generateBody.length / 1024, 1)} KiB body each) queued behind a held runner, accepted in ${round(acceptSeconds, 1)} s (${round(queued / acceptSeconds, 0)}/s)`,
);
console.table({
  "RSS MiB": { before: round(before.rss, 1), after: round(after.rss, 1), "per job KiB": round(((after.rss - before.rss) * 1024) / queued, 2) },
  "heap live MiB": { before: round(before.heap, 1), after: round(after.heap, 1), "per job KiB": round(((after.heap - before.heap) * 1024) / queued, 2) },
  ...Object.fromEntries(
    Object.keys(after.data).map((entry) => [
      `${entry} MiB`,
      {
        before: round(before.data[entry] ?? 0, 2),
        after: round(after.data[entry]!, 2),
        "per job KiB": round(((after.data[entry]! - (before.data[entry] ?? 0)) * 1024) / queued, 2),
      },
    ]),
  ),
});
console.log(`the newest 100 jobs then: ${stillQueued.data.jobs.filter((job) => job.status === "queued").length} still queued`);
console.log(`load average (1/5/15 min): before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${loadAfter.map((l) => l.toFixed(2)).join(" ")}`);
