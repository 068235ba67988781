import "./v8-heap-tuning.ts";
import { availableParallelism } from "node:os";
import { Effect, Layer, ManagedRuntime } from "effect";
import { ConfigError, loadConfig } from "./config.ts";
import { serverLayer } from "./composition.ts";
import { createHttpApp } from "./adapters/http/http-app.ts";
import { effectLoggerLayer, makeLogger } from "./adapters/http/logger.ts";
import { openApiDocument } from "./adapters/http/openapi-document.ts";
import { makeResultUrlSigner } from "./adapters/results/signed-result-url.ts";
import { startServers } from "./adapters/http/servers.ts";
import { loadTlsCredentials } from "./adapters/http/tls-credentials.ts";
import { loadServerSecrets } from "./adapters/security/server-secret.ts";
import { ResultStore } from "./ports/result-store.ts";
import { Clock } from "./ports/clock.ts";

/** The service: configuration, adapters, HTTPS and plain-HTTP listeners, orderly shutdown. */
const start = async () => {
  const config = loadConfig(process.env, availableParallelism());
  const logger = makeLogger(config.logLevel);
  const secrets = loadServerSecrets(config);
  const tls = await loadTlsCredentials(config);
  if (tls.selfSigned) {
    logger.warn({ certificate: tls.certPath }, "TLS_CERT/TLS_KEY not set: serving a self-signed certificate made for local use");
  }

  const resultUrls = makeResultUrlSigner(secrets.resultUrlKey);
  const runtime = ManagedRuntime.make(serverLayer(config, secrets).pipe(Layer.provideMerge(effectLoggerLayer(logger))));
  const run = runtime.runPromiseExit;
  // Build every layer now: a missing model or an unreadable store stops the start, not a request.
  await runtime.runPromise(Effect.void);

  const servers = await startServers({
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
      }),
    tls,
    host: config.host,
    port: config.port,
    httpPort: config.httpPort,
    publicBaseUrl: config.publicBaseUrl,
  });
  logger.info({ httpsPort: servers.httpsPort, httpPort: servers.httpPort, publicBaseUrl: servers.publicBaseUrl, dataDir: config.dataDir }, "listening");
  logger.flush();

  const purge = setInterval(() => {
    void run(
      Effect.gen(function* () {
        const deleted = yield* (yield* ResultStore).deleteExpired((yield* Clock).now());
        if (deleted > 0) logger.info({ deleted }, "expired results deleted");
      }),
    );
  }, 10 * 60_000);
  purge.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    clearInterval(purge);
    await servers.close();
    await runtime.dispose();
    logger.flush();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
};

start().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
