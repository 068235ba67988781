import fs from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { grainyPhotoJpeg } from "../test/support/image-fixtures.ts";
import { peakRssMiB, provisionAccount, startService } from "../test/support/service-process.ts";
import { BENCH_TEMPLATE, type EngineBaseline, measureEngineBaseline } from "./generate-engine.ts";

/**
 * POST /api/generate (social/instagram-square, 3000×2000 JPEG) through the whole HTTPS API at
 * concurrency 2 × cores, divided by the same sharp pipeline called in-process, in one run.
 * The two alternate for two rounds, so that a machine speeding up or slowing down meanwhile
 * weighs on both sides alike. Also reports the service's peak RSS under that load.
 * Usage: node bench/generate-throughput.ts [seconds per run, default 15]
 */
const seconds = Number(process.argv[2] ?? 15);
const concurrency = 2 * availableParallelism();
const ROUNDS = 2;

const service = await startService({ env: { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_PER_MINUTE: "1000000000" } });
const { keys } = await provisionAccount(service.env, "enterprise");
const body = JSON.stringify({ image: (await grainyPhotoJpeg()).toString("base64"), ...BENCH_TEMPLATE });
const run = (duration: number) =>
  autocannon({
    url: `https://127.0.0.1:${service.httpsPort}/api/generate`,
    method: "POST",
    headers: { Authorization: `Bearer ${keys[0]!.key}`, "Content-Type": "application/json" },
    body,
    connections: concurrency,
    duration,
    tlsOptions: { ca: fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem")) },
  });
await run(3);
const rounds: Array<{ baseline: EngineBaseline; https: autocannon.Result }> = [];
for (let round = 0; round < ROUNDS; round++) {
  rounds.push({ baseline: await measureEngineBaseline({ concurrency, durationMs: seconds * 1000 }), https: await run(seconds) });
}
const peak = peakRssMiB(service.pid);
await service.stop();

const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / values.length;
const httpsPerSecond = mean(rounds.map(({ https }) => https.requests.total / (https.duration || seconds)));
const baselinePerSecond = mean(rounds.map(({ baseline }) => baseline.perSecond));
console.log(
  `POST /api/generate ${BENCH_TEMPLATE.templateType}/${BENCH_TEMPLATE.template}, 3000×2000 JPEG (${rounds[0]!.baseline.input.bytes} bytes), ` +
    `concurrency ${concurrency}, ${ROUNDS} alternating rounds of ${seconds} s`,
);
console.table([
  {
    path: "in-process (inspect + render)",
    "per s": Number(baselinePerSecond.toFixed(2)),
    "p50 ms": mean(rounds.map(({ baseline }) => baseline.latencyMs.p50)),
    "p95 ms": mean(rounds.map(({ baseline }) => baseline.latencyMs.p95)),
    non2xx: 0,
  },
  {
    path: "HTTPS API (whole stack)",
    "per s": Number(httpsPerSecond.toFixed(2)),
    "p50 ms": mean(rounds.map(({ https }) => https.latency.p50)),
    "p95 ms": mean(rounds.map(({ https }) => https.latency.p97_5)),
    non2xx: rounds.reduce((n, { https }) => n + https.non2xx, 0),
  },
]);
const roundRatios = rounds.map(({ baseline, https }) => (https.requests.total / (https.duration || seconds) / baseline.perSecond).toFixed(3));
console.log(
  `ratio HTTPS/in-process = ${(httpsPerSecond / baselinePerSecond).toFixed(3)} (goal ≥ 0.85; rounds ${roundRatios.join(", ")}); ` +
    `service peak RSS ${peak.toFixed(0)} MiB`,
);
