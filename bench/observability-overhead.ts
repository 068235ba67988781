import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { provisionAccount, type ServiceProcess, startService } from "../test/support/service-process.ts";
import { type LoadResult, loadTest } from "./support/autocannon-run.ts";

/**
 * What metrics and tracing cost on the cheapest keyed route, GET /api/user/profile (HTTPS,
 * keep-alive, 16 connections), against the same service with both off, in one run. Four service
 * processes, measured in alternating rounds so that the machine's drift weighs on each alike:
 * off (the default), METRICS_PORT set (and scraped every second, as a busy Prometheus would), and
 * METRICS_PORT plus OTEL_EXPORTER_OTLP_ENDPOINT (spans exported to a sink in this process), every
 * trace or 10 % of them (OTEL_TRACES_SAMPLER_ARG=0.1). Besides requests per second it reports the
 * service's CPU time per request (from /proc), which a busy machine disturbs much less.
 * Usage: node bench/observability-overhead.ts [seconds per run, default 8]
 */
const seconds = Number(process.argv[2] ?? 8);
const rounds = 3;
const connections = 16;
const unlimited = { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_PER_MINUTE: "1000000000" };

let spansReceived = 0;
const sink = http.createServer((request, response) => {
  let bytes = 0;
  request.on("data", (chunk: Buffer) => (bytes += chunk.length));
  request.on("end", () => {
    spansReceived += bytes > 0 ? 1 : 0;
    response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const start = async (env: Record<string, string>) => {
  const service = await startService({ env: { ...unlimited, ...env } });
  const { keys } = await provisionAccount(service.env, "pro");
  const listening = service
    .logs()
    .split("\n")
    .find((line) => line.includes('"msg":"listening"'));
  const metricsPort = (JSON.parse(listening!) as { metricsPort?: number }).metricsPort;
  return { service, key: keys[0]!.key, metricsPort, ca: fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem")) };
};
const stacks = {
  off: await start({}),
  metrics: await start({ METRICS_PORT: "0" }),
  tracing: await start({ METRICS_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
  tracing10: await start({ METRICS_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER_ARG: "0.1" }),
};
type Stack = keyof typeof stacks;

const scrapeEverySecond = (port: number | undefined) =>
  port === undefined ? undefined : setInterval(() => http.get(`http://127.0.0.1:${port}/metrics`, (res) => res.resume()), 1000);

/** CPU seconds (user + system) a process has used: less disturbed by a busy machine than throughput. */
const cpuSeconds = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const measure = async (name: Stack, runSeconds: number) => {
  const { service, key, metricsPort, ca } = stacks[name];
  const scraper = scrapeEverySecond(metricsPort);
  const cpuBefore = cpuSeconds(service.pid);
  try {
    const result = await loadTest({
      url: `https://127.0.0.1:${service.httpsPort}/api/user/profile`,
      headers: { Authorization: `Bearer ${key}` },
      connections,
      seconds: runSeconds,
      ca,
    });
    return { ...result, cpuMicrosPerRequest: ((cpuSeconds(service.pid) - cpuBefore) * 1e6) / (result.requestsPerSecond * runSeconds) };
  } finally {
    clearInterval(scraper);
  }
};

for (const name of Object.keys(stacks) as Stack[]) await measure(name, 2);
const results: Record<Stack, Array<LoadResult & { cpuMicrosPerRequest: number }>> = { off: [], metrics: [], tracing: [], tracing10: [] };
for (let round = 0; round < rounds; round++) {
  // Rotate the order each round, so no stack always runs right after another.
  const order = (Object.keys(stacks) as Stack[]).map((_, i, all) => all[(i + round) % all.length]!);
  for (const name of order) results[name].push(await measure(name, seconds));
}
await Promise.all(Object.values(stacks).map(({ service }: { service: ServiceProcess }) => service.stop()));
sink.close();

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const rps = (name: Stack) => mean(results[name].map((r) => r.requestsPerSecond));
console.log(`GET /api/user/profile, HTTPS keep-alive, ${connections} connections, ${rounds} × ${seconds} s per stack, alternating`);
console.table(
  (Object.keys(results) as Stack[]).map((name) => ({
    stack: name,
    "req/s": Math.round(rps(name)),
    "p50 ms": mean(results[name].map((r) => r.p50Ms)),
    "p99 ms": mean(results[name].map((r) => r.p99Ms)),
    "service CPU µs/req": Math.round(mean(results[name].map((r) => r.cpuMicrosPerRequest))),
    "non-2xx": results[name].reduce((n, r) => n + r.non2xx, 0),
    errors: results[name].reduce((n, r) => n + r.errors, 0),
  })),
);
console.log(
  `ratio metrics/off = ${(rps("metrics") / rps("off")).toFixed(3)}, metrics+tracing/off = ${(rps("tracing") / rps("off")).toFixed(3)}, ` +
    `metrics+tracing sampling 10 %/off = ${(rps("tracing10") / rps("off")).toFixed(3)}`,
);
const cpu = (name: Stack) => mean(results[name].map((r) => r.cpuMicrosPerRequest));
console.log(
  `service CPU per request, relative to off: metrics ${(cpu("metrics") / cpu("off")).toFixed(3)}, metrics+tracing ${(cpu("tracing") / cpu("off")).toFixed(3)}, ` +
    `metrics+tracing 10 % ${(cpu("tracing10") / cpu("off")).toFixed(3)}`,
);
console.log(`OTLP export requests received by the sink: ${spansReceived}`);
