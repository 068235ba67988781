import { Result, Schema, SchemaIssue } from "effect";
import path from "node:path";
import { defaultServiceSettings } from "./application/settings.ts";
import { defaultPostgresSchema } from "./adapters/event-store/postgres-event-store.ts";

/**
 * Configuration comes from the environment, decoded once with a Schema so a bad value stops
 * the process at start with a message naming the variable. The CLI reads the same variables.
 */
const Port = Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 65535 }));
const PositiveInt = Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThan(0));
const Bool = Schema.Literals(["true", "false", "1", "0"]);

const Env = Schema.Struct({
  HOST: Schema.optionalKey(Schema.String),
  PORT: Schema.optionalKey(Port),
  HTTP_PORT: Schema.optionalKey(Port),
  DATA_DIR: Schema.optionalKey(Schema.String),
  TLS_CERT: Schema.optionalKey(Schema.String),
  TLS_KEY: Schema.optionalKey(Schema.String),
  PUBLIC_BASE_URL: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^https:\/\/[^\s/]+(\/[^\s]*)?$/))),
  LOG_LEVEL: Schema.optionalKey(Schema.Literals(["debug", "info", "warn", "error", "silent"])),
  TRUST_PROXY: Schema.optionalKey(Bool),
  SERVER_SECRET: Schema.optionalKey(Schema.String.check(Schema.isMinLength(32))),
  MAX_BODY_BYTES: Schema.optionalKey(PositiveInt),
  MAX_IMAGE_BYTES: Schema.optionalKey(PositiveInt),
  MAX_IMAGE_PIXELS: Schema.optionalKey(PositiveInt),
  MAX_KEYS_PER_ACCOUNT: Schema.optionalKey(PositiveInt),
  RESULT_TTL_SECONDS: Schema.optionalKey(PositiveInt),
  QUOTA_RESERVATION_TTL_SECONDS: Schema.optionalKey(PositiveInt),
  SQLITE_SYNCHRONOUS: Schema.optionalKey(Schema.Literals(["normal", "full"])),
  OCR_ENGINE: Schema.optionalKey(Schema.Literals(["tesseract", "paddle"])),
  OCR_WORKERS: Schema.optionalKey(PositiveInt),
  EVENT_STORE: Schema.optionalKey(Schema.Literals(["sqlite", "postgres", "kurrentdb"])),
  DATABASE_URL: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^postgres(ql)?:\/\/\S+$/))),
  KURRENTDB_URL: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\/\S+$/))),
  RATE_LIMIT_BURST: Schema.optionalKey(PositiveInt),
  RATE_LIMIT_PER_MINUTE: Schema.optionalKey(PositiveInt),
  ENGINE_CONCURRENCY: Schema.optionalKey(PositiveInt),
  ENGINE_QUEUE_LENGTH: Schema.optionalKey(PositiveInt),
  ENGINE_DEADLINE_MS: Schema.optionalKey(PositiveInt),
  NATS_URL: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^(nats|tls):\/\/[^\s]+$/))),
  NATS_NAMESPACE: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{1,32}$/))),
  OPERATOR_TOKEN: Schema.optionalKey(Schema.String.check(Schema.isMinLength(32))),
});

/**
 * Where the events live. SQLite: one file under DATA_DIR, for one machine. PostgreSQL and KurrentDB:
 * one store that several instances (and the CLI) share.
 */
export type EventStoreSelection =
  | { readonly kind: "sqlite"; readonly path: string }
  | { readonly kind: "postgres"; readonly url: string; readonly schema: string }
  | { readonly kind: "kurrentdb"; readonly url: string };

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
  /** Believe X-Forwarded-Proto/For: only behind a TLS-terminating proxy. */
  readonly trustProxy: boolean;
  readonly serverSecret: string | undefined;
  readonly maxBodyBytes: number;
  readonly maxImageBytes: number;
  readonly maxImagePixels: number;
  readonly maxKeysPerAccount: number;
  readonly resultTtlSeconds: number;
  /** How long a quota reservation holds its unit when its instance dies before committing or releasing it. */
  readonly quotaReservationTtlSeconds: number;
  /** Overrides the plans' per-key rate when both are set (load tests); unset: the spec's 15 burst, 10/min. */
  /** SQLite commit durability: "normal" survives a killed process, "full" also a power cut (slower). */
  readonly sqliteSynchronous: "normal" | "full";
  /** The text-recognition adapter: tesseract.js (every language) or PaddleOCR PP-OCRv4 on ONNX (eng, chi_sim). */
  readonly ocrEngine: "tesseract" | "paddle";
  readonly ocrWorkers: number;
  readonly eventStore: EventStoreSelection;
  readonly rateOverride: { readonly burst: number; readonly perMinute: number } | undefined;
  readonly engineConcurrency: number;
  readonly engineQueueLength: number;
  readonly engineDeadlineMs: number;
  /** NATS with JetStream (NATS_URL): the event bus and the shared rate limiter; unset: in-process bus, in-memory limiter. */
  readonly natsUrl: string | undefined;
  /** Prefix of every stream, subject, consumer and bucket this deployment makes on NATS. */
  readonly natsNamespace: string;
  /** The bearer credential of the operator-only audit API; unset: that API refuses everyone. */
  readonly operatorToken: string | undefined;
}

export class ConfigError extends Error {}

/**
 * `postgres://…?schema=name` names the PostgreSQL schema that holds the events (default event_store):
 * one URL says everything, for DATABASE_URL and for `itsctl store migrate`. The parameter is ours, not
 * the driver's, so it is taken out of the URL the driver sees.
 */
export const postgresLocation = (url: string): { readonly url: string; readonly schema: string } => {
  const parsed = URL.parse(url);
  if (parsed === null || !/^postgres(ql)?:$/.test(parsed.protocol)) throw new ConfigError("not a PostgreSQL URL: expected postgres://user:password@host:5432/database");
  const schema = parsed.searchParams.get("schema") ?? defaultPostgresSchema;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError(`schema "${schema}" in the PostgreSQL URL: use lower-case letters, digits and _ (at most 63), not starting with a digit`);
  }
  parsed.searchParams.delete("schema");
  return { url: parsed.href, schema };
};

const MiB = 1024 * 1024;

const selectEventStore = (
  kind: EventStoreSelection["kind"],
  databaseUrl: string | undefined,
  kurrentDbUrl: string | undefined,
  dataDir: string,
): EventStoreSelection => {
  switch (kind) {
    case "sqlite":
      return { kind, path: path.join(dataDir, "events.sqlite") };
    case "postgres":
      if (databaseUrl === undefined) {
        throw new ConfigError("EVENT_STORE=postgres needs DATABASE_URL, e.g. postgres://user:password@host:5432/db?schema=event_store");
      }
      return { kind, ...postgresLocation(databaseUrl) };
    case "kurrentdb":
      if (kurrentDbUrl === undefined) throw new ConfigError("EVENT_STORE=kurrentdb needs KURRENTDB_URL, e.g. kurrentdb://host:2113?tls=false");
      return { kind, url: kurrentDbUrl };
  }
};

export const loadConfig = (env: Readonly<Record<string, string | undefined>>, cores: number): Config => {
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
  const host = e.HOST ?? "127.0.0.1";
  const dataDir = path.resolve(e.DATA_DIR ?? "./data");
  const maxImageBytes = e.MAX_IMAGE_BYTES ?? 10 * MiB;
  return {
    host,
    port: e.PORT ?? 8443,
    httpPort: e.HTTP_PORT ?? 8080,
    dataDir,
    tlsCert: e.TLS_CERT,
    tlsKey: e.TLS_KEY,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ""),
    logLevel: e.LOG_LEVEL ?? "info",
    trustProxy: e.TRUST_PROXY === "true" || e.TRUST_PROXY === "1",
    serverSecret: e.SERVER_SECRET,
    // Two base64 images (try-on) at the image limit, plus JSON around them.
    maxBodyBytes: e.MAX_BODY_BYTES ?? Math.ceil((maxImageBytes * 4) / 3) * 2 + MiB,
    maxImageBytes,
    maxImagePixels: e.MAX_IMAGE_PIXELS ?? 40_000_000,
    maxKeysPerAccount: e.MAX_KEYS_PER_ACCOUNT ?? 20,
    resultTtlSeconds: e.RESULT_TTL_SECONDS ?? 24 * 60 * 60,
    quotaReservationTtlSeconds: e.QUOTA_RESERVATION_TTL_SECONDS ?? defaultServiceSettings.reservationTtlMs / 1000,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS ?? "normal",
    ocrEngine: e.OCR_ENGINE ?? "tesseract",
    ocrWorkers: e.OCR_WORKERS ?? Math.max(1, cores),
    eventStore: selectEventStore(e.EVENT_STORE ?? "sqlite", e.DATABASE_URL, e.KURRENTDB_URL, dataDir),
    rateOverride:
      e.RATE_LIMIT_BURST !== undefined && e.RATE_LIMIT_PER_MINUTE !== undefined
        ? { burst: e.RATE_LIMIT_BURST, perMinute: e.RATE_LIMIT_PER_MINUTE }
        : undefined,
    engineConcurrency: e.ENGINE_CONCURRENCY ?? Math.max(1, cores),
    engineQueueLength: e.ENGINE_QUEUE_LENGTH ?? Math.max(1, cores) * 8,
    engineDeadlineMs: e.ENGINE_DEADLINE_MS ?? 30_000,
    natsUrl: e.NATS_URL,
    natsNamespace: e.NATS_NAMESPACE ?? "its",
    operatorToken: e.OPERATOR_TOKEN,
  };
};
