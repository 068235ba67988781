import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import autocannon from "autocannon";
import sharp from "sharp";
import { grainyPhotoJpeg } from "../test/support/image-fixtures.ts";
import { peakRssMiB, provisionAccount, rssMiB, startService } from "../test/support/service-process.ts";
import { BENCH_TEMPLATE } from "./generate-engine.ts";
import { cpuSecondsOf } from "./support/process-cpu.ts";

/**
 * POST /api/generate beside what a customer could run instead, in one run on one machine, same
 * image (3000×2000 JPEG) and output (1080² JPEG q85, cover):
 * - the physical limit: plain sharp in-process, `resize(1080, 1080, { fit: "cover" })` with the
 *   centre and the attention strategy (no HTTP, no base64, no checks);
 * - the open-source peer: unjs/ipx 3 (sharp inside) in its own process, plain HTTP, source on disk;
 * - the service over HTTPS: `focus: "centre"`, and the default focus (faces, then attention).
 * Each path runs for the given time at the same concurrency, in alternating rounds, so that a
 * machine that speeds up or slows down weighs on all alike.
 * Usage: node bench/generate-peers.ts [seconds per path and round, default 10] [concurrency, default 4]
 */
const seconds = Number(process.argv[2] ?? 10);
const concurrency = Number(process.argv[3] ?? 4);
const ROUNDS = 2;
const SIDE = 1080;
const QUALITY = 85;

const jpeg = await grainyPhotoJpeg();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "its-peers-"));
fs.writeFileSync(path.join(folder, "bench.jpg"), jpeg);

/** Images per second, and CPU milliseconds per image of the process doing the work. */
interface Measured {
  readonly perSecond: number;
  readonly cpuMs: number;
}

/** `work` kept `concurrency` deep for `ms`, in this process. */
const inProcess = async (work: () => Promise<unknown>, ms: number): Promise<Measured> => {
  const until = performance.now() + ms;
  const started = performance.now();
  const cpu = process.cpuUsage();
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await work();
        done += 1;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { perSecond: (done * 1000) / (performance.now() - started), cpuMs: (used.user + used.system) / 1000 / done };
};
const plainSharp = (position: string | number) => () => sharp(jpeg).resize(SIDE, SIDE, { fit: "cover", position }).jpeg({ quality: QUALITY }).toBuffer();

const ipx = spawn(process.execPath, [path.join(import.meta.dirname, "support", "ipx-server.ts"), folder], { stdio: ["ignore", "pipe", "inherit"] });
const ipxPort = await new Promise<number>((resolve, reject) => {
  readline.createInterface({ input: ipx.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
  ipx.once("exit", (code) => reject(new Error(`ipx exited (${code})`)));
});
const ipxUrl = `http://127.0.0.1:${ipxPort}/s_${SIDE}x${SIDE},fit_cover,q_${QUALITY},f_jpeg/bench.jpg`;

const service = await startService({ env: { RATE_LIMIT_BURST: "100000000", RATE_LIMIT_PER_MINUTE: "100000000" } });
const { keys } = await provisionAccount(service.env, "enterprise");
const idleRss = rssMiB(service.pid);
const ca = fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem"));
const serviceBody = (focus?: string) => JSON.stringify({ image: jpeg.toString("base64"), ...BENCH_TEMPLATE, ...(focus ? { focus } : {}) });

/** A server process loaded over HTTP(S) by autocannon for `ms`; its CPU is the server's alone. */
const overHttp = async (pid: number, options: autocannon.Options, ms: number): Promise<Measured> => {
  const cpu = cpuSecondsOf(pid);
  const result = await autocannon({ connections: concurrency, duration: ms / 1000, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { perSecond: result.requests.total / (result.duration || ms / 1000), cpuMs: ((cpuSecondsOf(pid) - cpu) * 1000) / result.requests.total };
};
const throughService = (focus?: string) => (ms: number) =>
  overHttp(
    service.pid,
    {
      url: `https://127.0.0.1:${service.httpsPort}/api/generate`,
      method: "POST",
      headers: { Authorization: `Bearer ${keys[0]!.key}`, "Content-Type": "application/json" },
      body: serviceBody(focus),
      tlsOptions: { ca },
    },
    ms,
  );

const paths: ReadonlyArray<{ readonly name: string; readonly run: (ms: number) => Promise<Measured> }> = [
  { name: "plain sharp, centre", run: (ms) => inProcess(plainSharp("centre"), ms) },
  { name: "plain sharp, attention", run: (ms) => inProcess(plainSharp(sharp.strategy.attention), ms) },
  { name: "ipx 3 (HTTP, source on disk)", run: (ms) => overHttp(ipx.pid!, { url: ipxUrl }, ms) },
  { name: 'service, focus "centre"', run: throughService("centre") },
  { name: "service, default focus", run: throughService() },
];
const expected = `${SIDE}×${SIDE} jpeg`;
const measured = new Map<string, Array<Measured>>(paths.map(({ name }) => [name, []]));
let peak: number | undefined;
try {
  // Each path's output checked once: the same size and format everywhere, or the comparison is void.
  const sizeOf = async (bytes: Buffer) => {
    const { width, height, format } = await sharp(bytes).metadata();
    return `${width}×${height} ${format}`;
  };
  const ipxOutput = await fetch(ipxUrl);
  const seen = [await sizeOf(await plainSharp("centre")()), await sizeOf(Buffer.from(await ipxOutput.arrayBuffer()))];
  const made = await service.client.request("POST", "/api/generate", { key: keys[0]!.key, body: JSON.parse(serviceBody("centre")) as object });
  seen.push(`${made.json.data.width}×${made.json.data.height} ${made.json.data.format}`);
  if (seen.some((s) => s !== expected)) throw new Error(`outputs differ: ${seen.join(", ")}`);

  for (const { run } of paths) await run(2000);
  for (let round = 0; round < ROUNDS; round++)
    for (const { name, run } of paths) {
      const { perSecond, cpuMs } = await run(seconds * 1000);
      measured.get(name)!.push({ perSecond, cpuMs });
      console.error(`round ${round + 1}: ${name} ${perSecond.toFixed(1)}/s, ${cpuMs.toFixed(0)} ms CPU per image`);
    }
  peak = peakRssMiB(service.pid);
} finally {
  await service.stop();
  ipx.kill();
  fs.rmSync(folder, { recursive: true, force: true });
}

const mean = (name: string, of: keyof Measured = "perSecond") => measured.get(name)!.reduce((sum, m) => sum + m[of], 0) / ROUNDS;
console.log(
  `3000×2000 JPEG (${jpeg.length} bytes) → ${expected} q${QUALITY} (${BENCH_TEMPLATE.templateType}/${BENCH_TEMPLATE.template}), ` +
    `concurrency ${concurrency}, ${ROUNDS} alternating rounds of ${seconds} s, ${os.availableParallelism()} cores`,
);
console.table(
  paths.map(({ name }) => ({
    path: name,
    "images/s": Number(mean(name).toFixed(2)),
    rounds: measured
      .get(name)!
      .map((m) => m.perSecond.toFixed(1))
      .join(" / "),
    "CPU ms/image": Math.round(mean(name, "cpuMs")),
  })),
);
// Throughput is the goal; CPU per image tells the same story on a machine that is not quiet.
const ratio = (a: string, b: string) => `${(mean(a) / mean(b)).toFixed(2)} (by CPU ${(mean(b, "cpuMs") / mean(a, "cpuMs")).toFixed(2)})`;
console.log(
  `service centre / plain sharp centre = ${ratio('service, focus "centre"', "plain sharp, centre")} (goal ≥ 0.75); ` +
    `service centre / ipx = ${ratio('service, focus "centre"', "ipx 3 (HTTP, source on disk)")} (goal ≥ 1); ` +
    `service default / plain sharp attention = ${ratio("service, default focus", "plain sharp, attention")} (goal ≥ 0.6); ` +
    `service RSS idle ${idleRss.toFixed(0)} MiB, peak ${peak?.toFixed(0)} MiB`,
);
