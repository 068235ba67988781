import "./v8-heap-tuning.ts";
import "./private-files.ts";
import { availableParallelism, totalmem } from "node:os";
import { Effect } from "effect";
import { makeLogger } from "./adapters/http/server/logger.ts";
import { loadServerSecrets } from "./adapters/security/server-secret.ts";
import { maskUrlSecrets } from "./adapters/security/url-secrets.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { describeStore } from "./event-store-registry.ts";
import { startHttpService } from "./http-service.ts";
import { observabilityFor } from "./observability.ts";
import { Clock } from "./ports/clock.ts";
import { ResultStore } from "./ports/result-store.ts";
import { describeResultStore } from "./result-store-registry.ts";

/** What this process may use: its cgroup's limit where one is set, else the machine's memory. */
const processMemoryBytes = () => {
  const constrained = process.constrainedMemory();
  return constrained > 0 ? Math.min(constrained, totalmem()) : totalmem();
};

/** The service: configuration, adapters, HTTPS and plain-HTTP listeners, orderly shutdown. */
const start = async () => {
  const config = loadConfig(process.env, availableParallelism(), processMemoryBytes());
  const observability = await observabilityFor(config);
  const logger = makeLogger(config.logLevel, observability.logMixin);
  const secrets = loadServerSecrets(config);
  const { servers, run, runtime, tls } = await startHttpService({ config, secrets, logger, instrumentation: observability });
  if (tls.selfSigned) {
    logger.warn({ certificate: tls.certPath }, "TLS_CERT/TLS_KEY not set: serving a self-signed certificate made for local use");
  }
  const { metricsPort } = await observability.start(run);
  logger.info(
    {
      httpsPort: servers.httpsPort,
      httpPort: servers.httpPort,
      metricsPort,
      publicBaseUrl: servers.publicBaseUrl,
      dataDir: config.dataDir,
      eventStore: describeStore(config.eventStore),
      resultStore: describeResultStore(config.resultStore),
      ocrEngine: config.ocrEngine.engine,
      engineMemoryBudgetBytes: config.engineMemoryBudgetBytes,
    },
    "listening",
  );
  logger.flush();

  // Results and kept idempotent responses past their expiry: swept at start (an instance that was
  // down has some waiting) and every 10 minutes.
  const sweep = () =>
    void run(
      Effect.gen(function* () {
        const deleted = yield* (yield* ResultStore).deleteExpired((yield* Clock).now());
        if (deleted > 0) logger.info({ deleted }, "expired results deleted");
      }),
    );
  sweep();
  const purge = setInterval(sweep, 10 * 60_000);
  purge.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    clearInterval(purge);
    // Admitted work finishes (its events and quota units are written as usual); new work gets 503.
    await servers.drain(config.engineDeadlineMs + 5_000);
    logger.info({ signal }, "admitted requests answered; stopping");
    await observability.stop();
    await runtime.dispose();
    logger.flush();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
};

start().catch((error: unknown) => {
  // A failed connection may quote its URL: passwords and tokens in it are masked.
  const text = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${maskUrlSecrets(text)}\n`);
  process.exit(1);
});
