import os from "node:os";
import path from "node:path";
import { Result, Schema, SchemaIssue } from "effect";
import { defaultDocumentMemoryBytes } from "./adapters/documents/document-memory.ts";
import type { BodyLimits } from "./adapters/http/api/engine-work.ts";
import { defaultAdmissionBudgetBytes } from "./adapters/http/server/admission-budget.ts";
import { parseTrustProxy, type TrustProxy } from "./adapters/http/server/forwarded-client.ts";
import type { NatsAuth } from "./adapters/nats/nats-credentials.ts";
import { secretWeakness } from "./adapters/security/secret-strength.ts";
import { defaultServiceSettings } from "./application/settings.ts";
import { ConfigError } from "./config-error.ts";
import { natsFrom } from "./config-nats.ts";
import { eventStoreKindNames, type EventStoreSelection, selectEventStore } from "./event-store-registry.ts";
import { ocrEngineNames, type OcrEngineSelection, selectOcrEngine } from "./ocr-engine-registry.ts";
import { resultStoreNames, type ResultStoreSelection, selectResultStore } from "./result-store-registry.ts";

/**
 * Configuration comes from the environment, decoded once with a Schema so a bad value stops
 * the process at start with a message naming the variable. The CLI reads the same variables.
 */
const Port = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 65535 }));
const PositiveInt = Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThan(0));

const Env = Schema.Struct({
  HOST: Schema.optionalKey(Schema.String),
  PORT: Schema.optionalKey(Port),
  HTTP_PORT: Schema.optionalKey(Port),
  DATA_DIR: Schema.optionalKey(Schema.String),
  TLS_CERT: Schema.optionalKey(Schema.String),
  TLS_KEY: Schema.optionalKey(Schema.String),
  PUBLIC_BASE_URL: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^https:\/\/[^\s/]+(\/[^\s]*)?$/))),
  LOG_LEVEL: Schema.optionalKey(Schema.Literals(["debug", "info", "warn", "error", "silent"])),
  TRUST_PROXY: Schema.optionalKey(Schema.String),
  SERVER_SECRET: Schema.optionalKey(Schema.String.check(Schema.isMinLength(32))),
  MAX_BODY_BYTES: Schema.optionalKey(PositiveInt),
  MAX_CONNECTIONS: Schema.optionalKey(PositiveInt),
  TLS_HANDSHAKE_TIMEOUT_MS: Schema.optionalKey(PositiveInt),
  MAX_IMAGE_BYTES: Schema.optionalKey(PositiveInt),
  MAX_IMAGE_PIXELS: Schema.optionalKey(PositiveInt),
  MAX_DOCUMENT_PAGES: Schema.optionalKey(PositiveInt),
  MAX_JOB_DOCUMENT_PAGES: Schema.optionalKey(PositiveInt),
  DOCUMENT_MEMORY_MB: Schema.optionalKey(PositiveInt),
  MAX_KEYS_PER_ACCOUNT: Schema.optionalKey(PositiveInt),
  RESULT_TTL_SECONDS: Schema.optionalKey(PositiveInt),
  QUOTA_RESERVATION_TTL_SECONDS: Schema.optionalKey(PositiveInt),
  JOB_LEASE_SECONDS: Schema.optionalKey(PositiveInt),
  JOB_CONCURRENCY: Schema.optionalKey(PositiveInt),
  MAX_QUEUED_JOBS: Schema.optionalKey(PositiveInt),
  SQLITE_SYNCHRONOUS: Schema.optionalKey(Schema.Literals(["normal", "full"])),
  // Each engine's own variables (OCR_WARM_LANGUAGES, OCR_TESSERACT_MODELS…) are read and checked by its registry entry.
  OCR_ENGINE: Schema.optionalKey(Schema.Literals(ocrEngineNames)),
  OCR_WORKERS: Schema.optionalKey(PositiveInt),
  // Each kind's own variables (DATABASE_URL, KURRENTDB_URL…) are read and checked by its registry entry.
  EVENT_STORE: Schema.optionalKey(Schema.Literals(eventStoreKindNames)),
  RATE_LIMIT_BURST: Schema.optionalKey(PositiveInt),
  RATE_LIMIT_PER_MINUTE: Schema.optionalKey(PositiveInt),
  ENGINE_CONCURRENCY: Schema.optionalKey(PositiveInt),
  ENGINE_QUEUE_LENGTH: Schema.optionalKey(PositiveInt),
  ENGINE_DEADLINE_MS: Schema.optionalKey(PositiveInt),
  ENGINE_MEMORY_BUDGET_BYTES: Schema.optionalKey(PositiveInt),
  RESULT_STORE: Schema.optionalKey(Schema.Literals(resultStoreNames)),
  NATS_URL: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^(nats|tls):\/\/[^\s]+$/))),
  NATS_NAMESPACE: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{1,32}$/))),
  NATS_TOKEN: Schema.optionalKey(Schema.String),
  NATS_NKEY_SEED_FILE: Schema.optionalKey(Schema.String),
  OPERATOR_TOKEN: Schema.optionalKey(Schema.String.check(Schema.isMinLength(32))),
  METRICS_PORT: Schema.optionalKey(Port),
  OTEL_EXPORTER_OTLP_ENDPOINT: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^https?:\/\/\S+$/))),
  OTEL_TRACES_SAMPLER_ARG: Schema.optionalKey(Schema.NumberFromString.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
  OTEL_SERVICE_NAME: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[\w.-]{1,64}$/))),
  LEDGER_SEAL_INTERVAL_SECONDS: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))),
  // A C2SP log origin: a schema-less URL, no spaces or '+'.
  LEDGER_LOG_ORIGIN: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[^\s+]{1,200}$/))),
  LEDGER_KEY_GENERATION: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 }))),
  WEBHOOK_ALLOW_INSECURE_TARGETS: Schema.optionalKey(Schema.Literals(["true", "false"])),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^\d{1,7}(,\d{1,7}){0,19}$/))),
  WEBHOOK_MAX_ENDPOINTS: Schema.optionalKey(PositiveInt),
  WEBHOOK_DISABLE_AFTER_SECONDS: Schema.optionalKey(PositiveInt),
});

export { ConfigError } from "./config-error.ts";
export type { EventStoreSelection } from "./event-store-registry.ts";
export type { ResultStoreSelection } from "./result-store-registry.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly httpPort: number;
  readonly dataDir: string;
  readonly tlsCert: string | undefined;
  readonly tlsKey: string | undefined;
  /** Base of result URLs and redirects (PUBLIC_BASE_URL); unset: https://HOST:<listening port>. */
  readonly publicBaseUrl: string | undefined;
  readonly logLevel: LogLevel;
  /** Which X-Forwarded-For/Proto entries to believe: only behind TLS-terminating proxies (see forwarded-client.ts). */
  readonly trustProxy: TrustProxy;
  readonly serverSecret: string | undefined;
  /** Body limits per route: two images (try-on) or one (generate, OCR). */
  readonly maxBodyBytes: BodyLimits;
  /** Open HTTPS connections at most; more are closed as they arrive. */
  readonly maxConnections: number;
  /**
   * A TLS handshake not finished within this is dropped (Node's default is 120 s). As long as the
   * headers' 20 s: under a flood of a thousand connections at once, honest handshakes wait their
   * turn for over 10 s on two cores, and were cut at the earlier 10 s default.
   */
  readonly tlsHandshakeTimeoutMs: number;
  readonly maxImageBytes: number;
  readonly maxImagePixels: number;
  /** Pages of a PDF or multi-page TIFF sent to /ocr, at most (413 beyond). */
  readonly maxDocumentPages: number;
  /** The same sent with Prefer: respond-async, never fewer than maxDocumentPages (docs/jobs.md says why it is larger). */
  readonly maxJobDocumentPages: number;
  /** Memory the document engine (PDFium) may grow to; a document that needs more gets 413. */
  readonly documentMemoryBytes: number;
  readonly maxKeysPerAccount: number;
  readonly resultTtlSeconds: number;
  /** How long a quota reservation holds its unit when its instance dies before committing or releasing it. */
  readonly quotaReservationTtlSeconds: number;
  /** Jobs (Prefer: respond-async): how long a claim holds unrenewed, how many run at once here, how many an account may have waiting. */
  readonly jobs: { readonly leaseSeconds: number; readonly concurrency: number; readonly maxQueuedPerAccount: number };
  /** SQLite commit durability: "normal" survives a killed process, "full" also a power cut (slower). */
  readonly sqliteSynchronous: "normal" | "full";
  /** The text-recognition adapter and its own settings (ocr-engine-registry.ts lists them). */
  readonly ocrEngine: OcrEngineSelection;
  readonly ocrWorkers: number;
  readonly eventStore: EventStoreSelection;
  /** Overrides the plans' per-key rate when both are set (load tests); unset: each plan's own (PLANS, src/domain/plan.ts). */
  readonly rateOverride: { readonly burst: number; readonly perMinute: number } | undefined;
  readonly engineConcurrency: number;
  /** Jobs that may wait for an engine, counted; undefined: only the memory budget and the deadline bound the line. */
  readonly engineQueueLength: number | undefined;
  readonly engineDeadlineMs: number;
  /** Bytes the requests waiting on an engine may hold (bodies as read, parsed and decoded); more get 503 before being read. */
  readonly engineMemoryBudgetBytes: number;
  /** Where results wait for their URL: DATA_DIR/results (one machine), or where every instance finds them: the PostgreSQL event store's database or a JetStream Object Store. */
  readonly resultStore: ResultStoreSelection;
  /**
   * NATS with JetStream (NATS_URL): the event bus and the shared rate limiter; unset: in-process
   * bus, in-memory limiter. The servers only, without the credentials NATS_URL may carry: safe to log.
   */
  readonly natsUrl: string | undefined;
  /** How to authenticate to NATS: from NATS_URL, NATS_TOKEN or NATS_NKEY_SEED_FILE (one of them). */
  readonly natsAuth: NatsAuth;
  /** Prefix of every stream, subject, consumer and bucket this deployment makes on NATS. */
  readonly natsNamespace: string;
  /** The bearer credential of the operator-only audit API; unset: that API refuses everyone. */
  readonly operatorToken: string | undefined;
  /** Plain-HTTP port of GET /metrics (Prometheus), bound to HOST; unset: no metrics are kept or served. */
  readonly metricsPort: number | undefined;
  /** OTLP/HTTP endpoint that traces are exported to (OTEL_EXPORTER_OTLP_ENDPOINT); unset: no tracing. */
  readonly otlpEndpoint: string | undefined;
  readonly otelServiceName: string;
  /** Share of new traces recorded (OTEL_TRACES_SAMPLER_ARG, 0-1); a caller's sampled `traceparent` is always followed. */
  readonly traceSampleRatio: number;
  /** How often the server seals the event store's stream heads (ledger seal); 0: only `itsctl ledger seal`. */
  readonly ledgerSealIntervalSeconds: number;
  /** The receipts log's origin line (LEDGER_LOG_ORIGIN); unset: one made of the store's identity. */
  readonly ledgerLogOrigin: string | undefined;
  /** The generation of the receipts log's signing key (LEDGER_KEY_GENERATION, from 1): raise it to rotate the key. */
  readonly ledgerKeyGeneration: number;
  /** Webhooks (docs/webhooks.md): insecure targets (http, loopback, private; development and tests only), the retry schedule, the caps. */
  readonly webhooks: {
    readonly allowInsecureTargets: boolean;
    readonly retryScheduleSeconds: ReadonlyArray<number>;
    readonly maxEndpoints: number;
    readonly disableAfterSeconds: number;
  };
}

const MiB = 1024 * 1024;

/** Images in base64 at the image limit, plus room for the JSON around them; MAX_BODY_BYTES caps them all. */
const bodyLimits = (maxImageBytes: number, cap: number | undefined): BodyLimits => {
  const image = Math.ceil((maxImageBytes * 4) / 3);
  const capped = (bytes: number) => Math.min(bytes, cap ?? Number.POSITIVE_INFINITY);
  return { twoImages: capped(image * 2 + MiB), oneImage: capped(image + MiB) };
};

const trustProxyFrom = (value: string | undefined): TrustProxy => {
  try {
    return parseTrustProxy(value);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
};

const withoutTrailingSlashes = (url: string) => {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
};

/** `memoryBytes`: what this process may use (its cgroup limit or the machine's memory); sizes the admission budget. */
export const loadConfig = (env: Readonly<Record<string, string | undefined>>, cores: number, memoryBytes: number = os.totalmem()): Config => {
  const known = Object.fromEntries(Object.keys(Env.fields).flatMap((name) => (env[name] === undefined || env[name] === "" ? [] : [[name, env[name]]])));
  const decoded = Schema.decodeUnknownResult(Env)(known, { errors: "all" });
  if (Result.isFailure(decoded)) {
    const issues = SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure.issue).issues;
    throw new ConfigError(`Invalid configuration: ${issues.map((i) => `${i.path?.join(".")}: ${i.message}`).join("; ")}`);
  }
  const e = decoded.success;
  if ((e.TLS_CERT === undefined) !== (e.TLS_KEY === undefined)) throw new ConfigError("Set both TLS_CERT and TLS_KEY, or neither.");
  if ((e.RATE_LIMIT_BURST === undefined) !== (e.RATE_LIMIT_PER_MINUTE === undefined)) {
    throw new ConfigError("Set both RATE_LIMIT_BURST and RATE_LIMIT_PER_MINUTE, or neither.");
  }
  const weakness = e.SERVER_SECRET === undefined ? undefined : secretWeakness(e.SERVER_SECRET);
  if (weakness !== undefined) throw new ConfigError(`SERVER_SECRET is too weak: ${weakness}.`);
  const host = e.HOST ?? "127.0.0.1";
  const dataDir = path.resolve(e.DATA_DIR ?? "./data");
  const maxImageBytes = e.MAX_IMAGE_BYTES ?? 10 * MiB;
  const eventStore = selectEventStore(e.EVENT_STORE ?? "sqlite", env, dataDir);
  const nats = natsFrom(e);
  const natsNamespace = e.NATS_NAMESPACE ?? "its";
  const resultTtlSeconds = e.RESULT_TTL_SECONDS ?? 24 * 60 * 60;
  return {
    host,
    port: e.PORT ?? 8443,
    httpPort: e.HTTP_PORT ?? 8080,
    dataDir,
    tlsCert: e.TLS_CERT,
    tlsKey: e.TLS_KEY,
    publicBaseUrl: e.PUBLIC_BASE_URL === undefined ? undefined : withoutTrailingSlashes(e.PUBLIC_BASE_URL),
    logLevel: e.LOG_LEVEL ?? "info",
    trustProxy: trustProxyFrom(e.TRUST_PROXY),
    serverSecret: e.SERVER_SECRET,
    // Two base64 images (try-on) at the image limit, plus JSON around them.
    maxBodyBytes: bodyLimits(maxImageBytes, e.MAX_BODY_BYTES),
    maxConnections: e.MAX_CONNECTIONS ?? 2048,
    tlsHandshakeTimeoutMs: e.TLS_HANDSHAKE_TIMEOUT_MS ?? 20_000,
    maxImageBytes,
    maxImagePixels: e.MAX_IMAGE_PIXELS ?? 40_000_000,
    maxDocumentPages: e.MAX_DOCUMENT_PAGES ?? defaultServiceSettings.maxDocumentPages,
    maxJobDocumentPages: Math.max(
      e.MAX_JOB_DOCUMENT_PAGES ?? defaultServiceSettings.maxJobDocumentPages,
      e.MAX_DOCUMENT_PAGES ?? defaultServiceSettings.maxDocumentPages,
    ),
    documentMemoryBytes: e.DOCUMENT_MEMORY_MB === undefined ? defaultDocumentMemoryBytes(memoryBytes) : e.DOCUMENT_MEMORY_MB * MiB,
    maxKeysPerAccount: e.MAX_KEYS_PER_ACCOUNT ?? 20,
    resultTtlSeconds,
    quotaReservationTtlSeconds: e.QUOTA_RESERVATION_TTL_SECONDS ?? defaultServiceSettings.reservationTtlMs / 1000,
    jobs: {
      leaseSeconds: e.JOB_LEASE_SECONDS ?? defaultServiceSettings.jobLeaseMs / 1000,
      concurrency: e.JOB_CONCURRENCY ?? Math.max(1, cores),
      maxQueuedPerAccount: e.MAX_QUEUED_JOBS ?? defaultServiceSettings.maxQueuedJobs,
    },
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS ?? "normal",
    ocrEngine: selectOcrEngine(e.OCR_ENGINE ?? "tesseract", env),
    ocrWorkers: e.OCR_WORKERS ?? Math.max(1, cores),
    eventStore,
    resultStore: selectResultStore(e.RESULT_STORE ?? "filesystem", { eventStore, dataDir, natsUrl: nats.natsUrl, natsNamespace, ttlSeconds: resultTtlSeconds }),
    rateOverride:
      e.RATE_LIMIT_BURST !== undefined && e.RATE_LIMIT_PER_MINUTE !== undefined ? { burst: e.RATE_LIMIT_BURST, perMinute: e.RATE_LIMIT_PER_MINUTE } : undefined,
    engineConcurrency: e.ENGINE_CONCURRENCY ?? Math.max(1, cores),
    engineQueueLength: e.ENGINE_QUEUE_LENGTH,
    engineDeadlineMs: e.ENGINE_DEADLINE_MS ?? 30_000,
    engineMemoryBudgetBytes: e.ENGINE_MEMORY_BUDGET_BYTES ?? defaultAdmissionBudgetBytes(memoryBytes),
    ...nats,
    natsNamespace,
    operatorToken: e.OPERATOR_TOKEN,
    metricsPort: e.METRICS_PORT,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    otelServiceName: e.OTEL_SERVICE_NAME ?? "image-transformation-api",
    traceSampleRatio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
    ledgerSealIntervalSeconds: e.LEDGER_SEAL_INTERVAL_SECONDS ?? 3600,
    ledgerLogOrigin: e.LEDGER_LOG_ORIGIN,
    ledgerKeyGeneration: e.LEDGER_KEY_GENERATION ?? 1,
    webhooks: {
      allowInsecureTargets: e.WEBHOOK_ALLOW_INSECURE_TARGETS === "true",
      retryScheduleSeconds: e.WEBHOOK_RETRY_SCHEDULE_SECONDS?.split(",").map(Number) ?? [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
      maxEndpoints: e.WEBHOOK_MAX_ENDPOINTS ?? 10,
      disableAfterSeconds: e.WEBHOOK_DISABLE_AFTER_SECONDS ?? 5 * 24 * 60 * 60,
    },
  };
};
