import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Effect, Fiber, Layer, ManagedRuntime } from "effect";
import type Koa from "koa";
import type { RunEffect } from "./adapters/http/api/effect-runner.ts";
import { openApiDocument } from "./adapters/http/api/openapi-document.ts";
import { jobPresenterLayer } from "./adapters/http/groups/jobs/job-presenter.ts";
import { makeAdmissionBudget } from "./adapters/http/server/admission-budget.ts";
import { createHttpApp } from "./adapters/http/server/http-app.ts";
import { effectLoggerLayer, type Logger } from "./adapters/http/server/logger.ts";
import { type RunningServers, startServers } from "./adapters/http/server/servers.ts";
import { loadTlsCredentials, type TlsCredentials } from "./adapters/http/server/tls-credentials.ts";
import { makeResultUrlSigner } from "./adapters/results/signed-result-url.ts";
import type { ServerSecrets } from "./adapters/security/server-secret.ts";
import { runJobs } from "./application/jobs/job-runner.ts";
import type { Config } from "./config.ts";
import { type PortDecorators, undecorated } from "./port-decorators.ts";
import { serverLayer } from "./server-composition.ts";

/** What wraps the service: request instrumentation and the tracing of use cases (observability.ts), or nothing. */
export interface Instrumentation {
  readonly decorators: PortDecorators;
  readonly httpMiddleware: ReadonlyArray<Koa.Middleware>;
  readonly traceRun: <R>(run: RunEffect<R>) => RunEffect<R>;
}

const uninstrumented: Instrumentation = { decorators: undecorated, httpMiddleware: [], traceRun: (run) => run };

/** Every service the server's layer provides: the handlers' and the background work's. */
export type ServerServices = Layer.Success<ReturnType<typeof serverLayer>>;

export interface HttpService {
  readonly servers: RunningServers;
  /** Runs an effect with the service's own services (what the handlers run with). */
  readonly run: RunEffect<ServerServices>;
  readonly runtime: ManagedRuntime.ManagedRuntime<ServerServices, unknown>;
  readonly tls: TlsCredentials;
  /** Drains the listeners (admitted requests answered within `graceMs`), then releases every service. */
  readonly stop: (graceMs: number) => Promise<void>;
}

/**
 * The HTTPS service as configured: the services (composition.ts), built at once so that a missing
 * model or an unreadable store stops the start, not a request; the HTTP app over them; its
 * listeners. main.ts serves it; tests start the same thing in their own process, on a temporary
 * DATA_DIR and free ports, when what they test is not the process itself.
 */
export const startHttpService = async (options: {
  readonly config: Config;
  readonly secrets: ServerSecrets;
  readonly logger: Logger;
  readonly instrumentation?: Instrumentation;
  /** The services: serverLayer (the default), or composition.ts's testServerLayer. */
  readonly layer?: (config: Config, secrets: ServerSecrets, decorators: PortDecorators) => ReturnType<typeof serverLayer>;
}): Promise<HttpService> => {
  const { config, secrets, logger } = options;
  const instrumentation = options.instrumentation ?? uninstrumented;
  const tls = await loadTlsCredentials(config);
  const runtime = ManagedRuntime.make(
    (options.layer ?? serverLayer)(config, secrets, instrumentation.decorators).pipe(Layer.provideMerge(effectLoggerLayer(logger))),
  );
  const run = instrumentation.traceRun(runtime.runPromiseExit as RunEffect<ServerServices>);
  await runtime.runPromise(Effect.void);
  const resultUrls = makeResultUrlSigner(secrets.resultUrlKey);
  const admissionBudget = makeAdmissionBudget(config.engineMemoryBudgetBytes);
  const makeApp = (publicBaseUrl: string) =>
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
      instrumentation: instrumentation.httpMiddleware,
      consoleCookieKey: secrets.consoleCookieKey,
    });
  const servers = await startServers({
    logger,
    makeApp,
    tls,
    host: config.host,
    port: config.port,
    httpPort: config.httpPort,
    publicBaseUrl: config.publicBaseUrl,
    maxConnections: config.maxConnections,
    tlsHandshakeTimeoutMs: config.tlsHandshakeTimeoutMs,
  });
  // Jobs run on every instance, their data made as the routes make theirs: with this instance's public origin in result URLs.
  const jobRunner = runtime.runFork(
    runJobs({ worker: `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`, concurrency: config.jobs.concurrency, pollMs: 1000 }).pipe(
      Effect.provide(jobPresenterLayer({ resultUrls, publicBaseUrl: servers.publicBaseUrl })),
    ),
  );
  return {
    servers,
    run,
    runtime,
    tls,
    stop: async (graceMs) => {
      await servers.drain(graceMs);
      // A job cut short here is taken over when its lease passes, by this instance restarted or another.
      await runtime.runPromise(Fiber.interrupt(jobRunner));
      await runtime.dispose();
    },
  };
};
