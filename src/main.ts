import "./v8-heap-tuning.ts";
import "./private-files.ts";
import { availableParallelism, totalmem } from "node:os";
import { Effect, Layer, ManagedRuntime } from "effect";
import { makeAdmissionBudget } from "./adapters/http/admission-budget.ts";
import { createHttpApp } from "./adapters/http/http-app.ts";
import { effectLoggerLayer, makeLogger } from "./adapters/http/logger.ts";
import { openApiDocument } from "./adapters/http/openapi-document.ts";
import { startServers } from "./adapters/http/servers.ts";
import { loadTlsCredentials } from "./adapters/http/tls-credentials.ts";
import { makeResultUrlSigner } from "./adapters/results/signed-result-url.ts";
import { loadServerSecrets } from "./adapters/security/server-secret.ts";
import { maskUrlSecrets } from "./adapters/security/url-secrets.ts";
import { serverLayer } from "./composition.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { observabilityFor } from "./observability.ts";
import { Clock } from "./ports/clock.ts";
import { ResultStore } from "./ports/result-store.ts";

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
  const tls = await loadTlsCredentials(config);
  if (tls.selfSigned) {
    logger.warn({ certificate: tls.certPath }, "TLS_CERT/TLS_KEY not set: serving a self-signed certificate made for local use");
  }

  const resultUrls = makeResultUrlSigner(secrets.resultUrlKey);
  const admissionBudget = makeAdmissionBudget(config.engineMemoryBudgetBytes);
  const runtime = ManagedRuntime.make(serverLayer(config, secrets, observability.decorators).pipe(Layer.provideMerge(effectLoggerLayer(logger))));
  const run = observability.traceRun(runtime.runPromiseExit);
  // Build every layer now: a missing model or an unreadable store stops the start, not a request.
  await runtime.runPromise(Effect.void);

  const servers = await startServers({
    logger,
    makeApp: (publicBaseUrl) =>
      createHttpApp({
        run,
        logger,
        maxBodyBytes: config.maxBodyBytes,
        resultUrls,
        openApiDocument: openApiDocument(publicBaseUrl),
        trustProxy: config.trustProxy,
        publicBaseUrl,
        operatorToken: config.operatorToken,
        admissionBudget,
        instrumentation: observability.httpMiddleware,
        consoleCookieKey: secrets.consoleCookieKey,
      }),
    tls,
    host: config.host,
    port: config.port,
    httpPort: config.httpPort,
    publicBaseUrl: config.publicBaseUrl,
    maxConnections: config.maxConnections,
    tlsHandshakeTimeoutMs: config.tlsHandshakeTimeoutMs,
  });
  const { metricsPort } = await observability.start(run);
  logger.info(
    {
      httpsPort: servers.httpsPort,
      httpPort: servers.httpPort,
      metricsPort,
      publicBaseUrl: servers.publicBaseUrl,
      dataDir: config.dataDir,
      engineMemoryBudgetBytes: admissionBudget.limit,
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
