import fs from "node:fs";
import path from "node:path";
import { scannedPage } from "../test/support/document-fixtures.ts";
import { watchHealthz } from "../test/support/healthz-watch.ts";
import { type Reply } from "../test/support/https-client.ts";
import { cmykJpeg, exifRotatedJpeg, photoJpeg, photoPng, photoWebp, portraitJpeg, sixteenBitPng } from "../test/support/image-fixtures.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../test/support/nats.ts";
import { itsctl, metricsPortOf, provisionAccount, rssMiB, startService } from "../test/support/service-process.ts";

/**
 * Ordinary traffic for a long time against one service process (its embedded SQLite store, events
 * carried to its projections by the NATS JetStream server every machine here runs): the clients a
 * customer writes, each key pacing itself under the rate limit (profiles, generates through the
 * catalog's templates, OCR, result URLs fetched as browsers do, retries with an Idempotency-Key,
 * mistakes that earn a 4xx), one client that bursts past its rate every minute, and free accounts
 * that use their quota up. While it runs: the instance's resident memory and its longest /healthz
 * answer, sampled every SAMPLE_SECONDS. After it: every account's quota used is the number of
 * charged successes its clients saw, the projections have caught up (lag 0), and `itsctl audit`
 * replays every account clean. The baseline is the run's own first sample: memory that grows shows
 * as a last-to-first ratio above 1 and a slope over the second half of the run.
 * Exits 1 on a 5xx, a request that fails outright or is answered off the served OpenAPI document,
 * or any of those checks failing.
 * SOAK_KILLS=n kills the instance (SIGKILL) n times, evenly spaced, and starts it again on the same
 * files, a few charged requests in flight each time: the clients then send every charged request with
 * an Idempotency-Key and repeat it until it is answered for good (after a dropped connection, a 409
 * while the dead attempt's lease runs, a 429 of the rate, a 503), as Stripe's
 * clients do, so that quota used must still equal what they were charged; a connection dropped by
 * the kill is counted, not failed. The lease is shortened to 30 s so that retries end within the run.
 * Usage: SOAK_MINUTES=30 [SOAK_KILLS=2] node bench/soak.ts (default 10 minutes, no kills).
 */
const MINUTES = Number(process.env["SOAK_MINUTES"] ?? 10);
const KILLS = Number(process.env["SOAK_KILLS"] ?? 0);
const SAMPLE_SECONDS = Number(process.env["SAMPLE_SECONDS"] ?? 30);
/** A key's own pace: under the rate per minute its plan allows (PLANS). */
const PACE_MS = 7_000;
const TEMPLATES = [
  "social/instagram-square",
  "social/linkedin-banner",
  "avatar/circle",
  "thumbnail/medium",
  "filter/vintage",
  "enhance/auto-level",
  "frame/polaroid",
  "format/avif",
] as const;

const namespace = testNamespace();
const env = { NATS_URL, NATS_NAMESPACE: namespace, METRICS_PORT: "0", ...(KILLS > 0 ? { QUOTA_RESERVATION_TTL_SECONDS: "30" } : {}) };
let service = await startService({ env });
/** The instance running now: after a kill, requests go to the one started in its place. */
const client = () => service.client;
const images = await Promise.all([photoJpeg(), portraitJpeg(), photoPng(), photoWebp(), cmykJpeg(), exifRotatedJpeg(), sixteenBitPng()]);
const encoded = images.map((bytes) => bytes.toString("base64"));
const textImage = Buffer.from(await scannedPage("Invoice 2026-11: total 42.50 EUR, due on receipt.", 900)).toString("base64");

interface Account {
  readonly plan: "free" | "pro" | "enterprise";
  readonly accountId: string;
  readonly keys: ReadonlyArray<string>;
  /** Successes that were charged (first answers, not replays). */
  charged: number;
}
const accounts: Array<Account> = [];
for (const [plan, keys] of [
  ["free", 2],
  ["pro", 2],
  ["pro", 1],
  ["enterprise", 2],
] as const) {
  const made = await provisionAccount(service.env, plan, keys);
  accounts.push({ plan, accountId: made.accountId, keys: made.keys.map((key) => key.key), charged: 0 });
}

const statuses = new Map<string, number>();
let interrupted = 0;
const failures: Array<string> = [];
const results: Array<string> = [];
const count = (what: string, reply: Reply) => {
  const name = `${what} ${reply.status}${reply.status >= 400 ? ` ${String(reply.json?.error?.code ?? "")}` : ""}`;
  statuses.set(name, (statuses.get(name) ?? 0) + 1);
  if (reply.status >= 500) failures.push(`${name}: ${reply.body.toString().slice(0, 300)}`);
};
const pick = <T>(items: ReadonlyArray<T>): T => items[Math.floor(Math.random() * items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = Date.now() + MINUTES * 60_000;
/** A connection the kill dropped (or refused while the instance restarts): expected when killing, a failure otherwise. */
const dropped = (error: unknown): undefined => {
  if (KILLS === 0 || typeof (error as { code?: unknown }).code !== "string") throw error;
  interrupted++;
  return undefined;
};

/** A charged POST: with kills, sent with an Idempotency-Key and repeated until it is answered for good. */
const chargedPost = async (what: string, path: string, key: string, body: object, idempotencyKey: string | undefined) => {
  const headers: Record<string, string> = idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey };
  for (;;) {
    const reply = await client().request("POST", path, { key, body, headers }).catch(dropped);
    // 429 too: once an answer was lost to a kill, only a repeat tells whether the request was charged.
    const retry = KILLS > 0 && (reply === undefined || reply.status === 409 || reply.status === 503 || reply.json?.error?.code === "RATE_LIMIT_EXCEEDED");
    if (reply !== undefined && !(retry && reply.status === 503)) count(what, reply);
    if (!retry) return reply!;
    await sleep(1000 * Number(reply?.headers["retry-after"] ?? 2));
  }
};

const generate = async (account: Account, key: string) => {
  const [templateType, template] = pick(TEMPLATES).split("/");
  const body = { image: pick(encoded), templateType, template };
  const idempotencyKey = KILLS > 0 || Math.random() < 0.2 ? `soak-${crypto.randomUUID()}` : undefined;
  const reply = await chargedPost("generate", "/api/generate", key, body, idempotencyKey);
  if (reply.status !== 200) return;
  account.charged++;
  results.push(reply.json.data.resultUrl as string);
  // A retry of the same request (a timeout on the client's side, say): answered again, charged once.
  if (idempotencyKey !== undefined) await chargedPost("generate retry", "/api/generate", key, body, idempotencyKey);
};

/** One request as a customer's code would send it; charged successes are counted for the account. */
const act = async (account: Account, key: string) => {
  const roll = Math.random();
  if (roll < 0.4) {
    const reply = await client().request("GET", "/api/user/profile", { key }).catch(dropped);
    return reply && count("profile", reply);
  }
  if (roll < 0.75) return generate(account, key);
  if (roll < 0.82) {
    const body = { image: textImage, language: "auto", outputFormat: "text" };
    const reply = await chargedPost("ocr", "/api/ocr", key, body, KILLS > 0 ? `soak-${crypto.randomUUID()}` : undefined);
    if (reply.status === 200) account.charged++;
    return;
  }
  if (roll < 0.92 && results.length > 0) {
    // As browsers fetch it: the URL's own format, or AVIF / WebP where the template lets the URL choose.
    const { pathname, search } = new URL(pick(results));
    const accept = pick(["image/avif,image/webp,*/*", "image/webp,*/*", "*/*"]);
    const reply = await client()
      .request("GET", pathname + search, { headers: { Accept: accept } })
      .catch(dropped);
    return reply && count("result", reply);
  }
  // Mistakes: a template that does not exist, an image that is not one.
  const wrong =
    Math.random() < 0.5
      ? { image: pick(encoded), templateType: "social", template: "no-such-template" }
      : { image: "aGVsbG8=", templateType: "filter", template: "sepia" };
  const reply = await client().request("POST", "/api/generate", { key, body: wrong }).catch(dropped);
  if (reply) count("mistake", reply);
};

const paced = async (account: Account, key: string) => {
  await sleep(Math.random() * PACE_MS);
  while (Date.now() < until) {
    // A request that failed outright, or a reply the served document does not describe (the client checks each).
    await act(account, key).catch((error: unknown) => failures.push(`request: ${String(error)}`));
    await sleep(PACE_MS * (0.8 + 0.4 * Math.random()));
  }
};

/** Twenty profile requests at once every minute: the plan's burst passes, the rest are refused with 429. */
const burster = async (key: string) => {
  while (Date.now() < until) {
    const replies = await Promise.all(Array.from({ length: 20 }, () => client().request("GET", "/api/user/profile", { key }).catch(dropped)));
    replies.forEach((reply) => reply && count("burst", reply));
    await sleep(60_000);
  }
};

const metrics = async () => {
  const response = await fetch(`http://127.0.0.1:${metricsPortOf(service)}/metrics`);
  return response.text();
};
const lagOf = (text: string) =>
  [...text.matchAll(/^its_projection_lag_events\{projection="(\w+)"\} (\d+)/gm)].map(([, name, lag]) => ({ projection: name, lag: Number(lag) }));

const samples: Array<{ minute: number; rssMiB: number; longestHealthzMs: number; healthzAnswers: number }> = [];
const restarts: Array<{ minute: number; startedAgainInMs: number }> = [];
const atKills: Array<Promise<void>> = [];
/** Samples between kills: the /healthz watch never spans one, the restart's own time is reported apart. */
const sampler = async () => {
  const started = Date.now();
  const killAt = Array.from({ length: KILLS }, (_, k) => started + ((k + 1) * MINUTES * 60_000) / (KILLS + 1));
  while (Date.now() < until) {
    if (killAt[0] !== undefined && Date.now() >= killAt[0]) {
      killAt.shift();
      // Charged requests in flight when the kill lands, each repeated with its key until answered.
      atKills.push(...[accounts[1]!, accounts[3]!].flatMap((account) => [0, 1].map(() => generate(account, account.keys[0]!))));
      await sleep(50 + Math.random() * 250);
      const killed = performance.now();
      await service.stop("SIGKILL");
      service = await startService({ dataDir: service.dataDir, env });
      restarts.push({ minute: Number(((Date.now() - started) / 60_000).toFixed(1)), startedAgainInMs: Math.round(performance.now() - killed) });
      console.error(JSON.stringify({ restart: restarts.at(-1) }));
    }
    const watch = watchHealthz(client(), 250);
    await sleep(SAMPLE_SECONDS * 1000);
    const { longestMs, answers } = await watch.stop();
    samples.push({
      minute: Number(((Date.now() - started) / 60_000).toFixed(1)),
      rssMiB: Math.round(rssMiB(service.pid)),
      longestHealthzMs: Math.round(longestMs),
      healthzAnswers: answers,
    });
    console.error(JSON.stringify(samples.at(-1)));
  }
};

const burstKey = accounts[3]!.keys[1]!;
await Promise.all([
  ...accounts.flatMap((account) => account.keys.filter((key) => key !== burstKey).map((key) => paced(account, key))),
  burster(burstKey),
  sampler(),
]);

await Promise.all(atKills);
// The projections catch up from the store; give the event flow a moment past the last request.
await sleep(2_000);
const lag = lagOf(await metrics());
const accounting = await Promise.all(
  accounts.map(async (account) => {
    const profile = await client().request("GET", "/api/user/profile", { key: account.keys[0]! });
    const used = profile.json.data.quota.used as number;
    const audit = await itsctl(service.env, ["audit", "--account", account.accountId, "--json"]);
    return { plan: account.plan, charged: account.charged, used, exact: used === account.charged, auditExit: audit.code };
  }),
);
await service.stop();
await dropNatsNamespace(namespace);

const half = samples.slice(Math.floor(samples.length / 2));
const slope = half.length >= 2 ? ((half.at(-1)!.rssMiB - half[0]!.rssMiB) / Math.max(0.1, half.at(-1)!.minute - half[0]!.minute)) * 60 : undefined;
const report = {
  minutes: MINUTES,
  requests: Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b))),
  rssMiB: {
    first: samples[0]?.rssMiB,
    max: Math.max(...samples.map((s) => s.rssMiB)),
    last: samples.at(-1)?.rssMiB,
    secondHalfMiBPerHour: slope === undefined ? null : Math.round(slope),
    // The run's own first sample (every engine loaded by then) is the baseline: growth shows as a ratio above 1.
    lastToFirst: Number(((samples.at(-1)?.rssMiB ?? 0) / (samples[0]?.rssMiB ?? 1)).toFixed(2)),
  },
  longestHealthzMs: Math.max(...samples.map((s) => s.longestHealthzMs)),
  restarts,
  interruptedByKills: interrupted,
  projectionLag: lag,
  accounting,
  failures,
};
console.log(JSON.stringify(report, null, 2));
const ok = failures.length === 0 && accounting.every((a) => a.exact && a.auditExit === 0) && lag.length > 0 && lag.every((l) => l.lag === 0);
fs.writeFileSync(path.join(service.dataDir, "soak-report.json"), JSON.stringify(report, null, 2));
process.exit(ok ? 0 : 1);
