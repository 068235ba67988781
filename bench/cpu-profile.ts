import fs from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { grainyPhotoJpeg } from "../test/support/image-fixtures.ts";
import { makeDataDir, provisionAccount, startService } from "../test/support/service-process.ts";
import { BENCH_TEMPLATE } from "./generate-engine.ts";

/**
 * Where a request's main-thread time goes. The service runs under V8's sampling profiler
 * (`--cpu-prof`) while autocannon loads one route; only the samples taken while the load ran count
 * (the profiler and this process read the same monotonic clock), their self time grouped by where
 * the code lives and divided by the requests answered. Idle time is left out: what remains is the
 * main thread's cost of one request (TLS, HTTP parsing, Koa, our middleware, Effect, the use case,
 * logging, GC), in µs. The client shares the machine, so figures are comparable within a machine.
 * Usage: node bench/cpu-profile.ts <profile|templates|healthz|generate> [seconds, default 10]
 */
const route = process.argv[2] ?? "profile";
const seconds = Number(process.argv[3] ?? 10);

type Category = string;
const categoryOf = (url: string, name: string): Category => {
  if (name === "(garbage collector)") return "GC";
  if (name === "(program)") return "V8/native (program)";
  if (name === "(idle)") return "idle";
  if (url === "") return "V8 builtins (JSON, RegExp, …)";
  if (/node:(_tls|tls|internal\/tls|internal\/crypto|crypto)/.test(url)) return "node: TLS and crypto";
  if (/node:(_http|http|internal\/http)/.test(url)) return "node: HTTP server";
  if (/node:(net|stream|internal\/streams|internal\/stream_base|events|internal\/event_target|buffer|internal\/buffer)/.test(url))
    return "node: streams, net, events";
  if (url.startsWith("node:")) return "node: other";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg !== undefined) {
    if (
      pkg === "koa" ||
      pkg.startsWith("@koa") ||
      /^(koa-compose|on-finished|statuses|http-errors|cookies|delegates|accepts|type-is|mime-types|content-type|vary|encodeurl|escape-html|fresh|content-disposition|only|parseurl|path-to-regexp|destroy)$/.test(
        pkg,
      )
    )
      return "Koa and its router";
    if (pkg === "pino" || pkg === "sonic-boom" || pkg === "fast-redact" || pkg === "quick-format-unescaped" || pkg === "thread-stream") return "logging (pino)";
    if (pkg === "effect") return "Effect runtime and Schema";
    return `package ${pkg}`;
  }
  const source = /\/src\/(.*)$/.exec(url)?.[1] ?? url;
  if (source.startsWith("adapters/http/") || source.startsWith("adapters/console/")) return "ours: HTTP adapter";
  if (source.startsWith("application/") || source.startsWith("domain/")) return "ours: use cases and domain";
  if (source.startsWith("adapters/")) return `ours: ${source.split("/")[1]} adapter`;
  return `ours: ${source}`;
};

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>;
  readonly startTime: number;
  readonly samples: ReadonlyArray<number>;
  readonly timeDeltas: ReadonlyArray<number>;
}

const profileDir = makeDataDir();
const service = await startService({
  env: { RATE_LIMIT_BURST: "1000000000", RATE_LIMIT_PER_MINUTE: "1000000000", NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` },
});
const { keys } = await provisionAccount({ ...service.env, NODE_OPTIONS: "" }, "enterprise");
const ca = fs.readFileSync(path.join(service.dataDir, "tls", "self-signed-cert.pem"));
const authorization = `Bearer ${keys[0]!.key}`;
const requests: Record<string, () => Promise<autocannon.Options>> = {
  profile: async () => ({ url: "/api/user/profile", headers: { Authorization: authorization }, connections: 16 }),
  templates: async () => ({ url: "/api/templates", headers: { Authorization: authorization }, connections: 16 }),
  healthz: async () => ({ url: "/healthz", connections: 16 }),
  generate: async () => ({
    url: "/api/generate",
    method: "POST",
    headers: { Authorization: authorization, "Content-Type": "application/json" },
    body: JSON.stringify({ image: (await grainyPhotoJpeg()).toString("base64"), ...BENCH_TEMPLATE }),
    connections: 2 * availableParallelism(),
  }),
};
const options = await requests[route]!();
const load = (duration: number) =>
  autocannon({ ...options, url: `https://127.0.0.1:${service.httpsPort}${options.url}`, duration, tlsOptions: { ca } } as autocannon.Options);
await load(2);
const from = Number(process.hrtime.bigint() / 1000n);
const result = await load(seconds);
const to = Number(process.hrtime.bigint() / 1000n);
await service.stop();

const file = fs.readdirSync(profileDir).find((name) => name.includes(`.${service.pid}.`) && name.endsWith(".cpuprofile"));
if (file === undefined) throw new Error(`no profile of process ${service.pid} in ${profileDir}`);
const profile = JSON.parse(fs.readFileSync(path.join(profileDir, file), "utf8")) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byCategory = new Map<Category, number>();
const byFunction = new Map<string, number>();
let at = profile.startTime;
for (let index = 0; index < profile.samples.length; index++) {
  at += profile.timeDeltas[index]!;
  // A sample's time is the interval until the next one.
  const spent = profile.timeDeltas[index + 1] ?? 0;
  if (at < from || at >= to) continue;
  const { functionName, url, lineNumber } = nodes.get(profile.samples[index]!)!.callFrame;
  const category = categoryOf(url, functionName);
  if (category === "idle") continue;
  byCategory.set(category, (byCategory.get(category) ?? 0) + spent);
  const where = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(node_modules|src)\//, "$1/")}:${lineNumber + 1}`;
  byFunction.set(where, (byFunction.get(where) ?? 0) + spent);
}
const answered = result.requests.total;
const perRequest = (us: number) => Math.round((us / answered) * 10) / 10;
const busy = [...byCategory.values()].reduce((a, b) => a + b, 0);
console.log(
  `${options.method ?? "GET"} ${options.url}: ${answered} requests in ${seconds} s (${Math.round(result.requests.average)} req/s, non-2xx ${result.non2xx})`,
);
console.log(`main thread busy ${perRequest(busy)} µs per request (${Math.round((busy / (to - from)) * 100)} % of the wall time)`);
console.table(
  [...byCategory]
    .sort((a, b) => b[1] - a[1])
    .map(([category, us]) => ({ where: category, "µs/request": perRequest(us), share: `${Math.round((us / busy) * 100)} %` })),
);
console.table(
  [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([where, us]) => ({ function: where.slice(0, 110), "µs/request": perRequest(us) })),
);
// KEEP_PROFILE=file.cpuprofile keeps it, for Chrome DevTools or speedscope.
if (process.env.KEEP_PROFILE) fs.copyFileSync(path.join(profileDir, file), process.env.KEEP_PROFILE);
fs.rmSync(profileDir, { recursive: true, force: true });
