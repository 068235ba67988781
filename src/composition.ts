import path from "node:path";
import { Effect, Layer } from "effect";
import { defaultServiceSettings, ServiceSettings } from "./application/settings.ts";
import type { Config, EventStoreSelection } from "./config.ts";
import { kurrentDbEventStoreLayer } from "./adapters/event-store/kurrentdb-event-store.ts";
import { postgresEventStoreLayer } from "./adapters/event-store/postgres-event-store.ts";
import { sqliteEventStoreLayer } from "./adapters/event-store/sqlite-event-store.ts";
import { cryptoIds } from "./adapters/ids/crypto-ids.ts";
import { hmacSecretHasher } from "./adapters/security/hmac-secret-hasher.ts";
import type { ServerSecrets } from "./adapters/security/server-secret.ts";
import { systemClock } from "./ports/clock.ts";
import { keyDirectoryLayer } from "./application/key-directory.ts";
import { inProcessStreamLocks } from "./application/stream-locks.ts";
import { lruStreamStateCache } from "./application/stream-state-cache.ts";
import { boundedImageEngineLayer } from "./adapters/image/bounded-image-engine.ts";
import { sharpImageEngineLayer } from "./adapters/image/sharp-image-engine.ts";
import { sharpImageInspectorLayer } from "./adapters/image/sharp-image-inspector.ts";
import { inMemoryRateLimiter } from "./adapters/rate-limit/in-memory-rate-limiter.ts";
import { inProcessEventBusLayer } from "./adapters/event-bus/in-process-event-bus.ts";
import { jetStreamEventBusLayer } from "./adapters/nats/jetstream-event-bus.ts";
import { kvRateLimiterLayer } from "./adapters/nats/kv-rate-limiter.ts";
import { natsConnectionLayer } from "./adapters/nats/nats-connection.ts";
import { sqliteProjectionsLayer } from "./adapters/projections/sqlite-projections.ts";
import { forwardEvents } from "./application/forwarder.ts";
import { runProjection } from "./application/projection-runner.ts";
import { KeyProjection, UsageProjection } from "./ports/projections.ts";
import { filesystemResultStoreLayer } from "./adapters/results/filesystem-result-store.ts";
import { SelfiePersonSegmenterLive } from "./adapters/segmentation/selfie-person-segmenter.ts";
import { OnnxTryOnEngineLive } from "./adapters/tryon/onnx-tryon-engine.ts";
import { ocrEngineLayer } from "./adapters/ocr/ocr-engine-layer.ts";

/**
 * The composition root: which adapter stands behind each port is decided here, from
 * configuration, and nowhere else. The server and the CLI share the core.
 */
export const settingsLayer = (config: Config) =>
  Layer.succeed(ServiceSettings)({
    ...defaultServiceSettings,
    maxImageBytes: config.maxImageBytes,
    maxKeysPerAccount: config.maxKeysPerAccount,
    resultTtlMs: config.resultTtlSeconds * 1000,
    reservationTtlMs: config.quotaReservationTtlSeconds * 1000,
    rateOverride: config.rateOverride,
  });

/** The event store a selection names; `itsctl store migrate` opens two of them this way. */
export const eventStoreLayerFor = (selection: EventStoreSelection, options: { readonly sqliteSynchronous?: "normal" | "full" } = {}) => {
  switch (selection.kind) {
    case "sqlite":
      return sqliteEventStoreLayer({ path: selection.path, synchronous: options.sqliteSynchronous ?? "normal" });
    case "postgres":
      return postgresEventStoreLayer({ connectionString: selection.url, schema: selection.schema });
    case "kurrentdb":
      return kurrentDbEventStoreLayer({ connectionString: selection.url });
  }
};

export const eventStoreLayer = (config: Config) => eventStoreLayerFor(config.eventStore, { sqliteSynchronous: config.sqliteSynchronous });

/** What every entry point needs: the event store, time, ids, the key hasher, the limits. */
export const coreLayer = (config: Config, secrets: ServerSecrets) =>
  Layer.mergeAll(
    eventStoreLayer(config),
    systemClock,
    cryptoIds,
    hmacSecretHasher(secrets.apiKeyHashKey),
    settingsLayer(config),
    lruStreamStateCache(),
    inProcessStreamLocks,
  );

/** The projections (usage, key directory): one SQLite file under DATA_DIR, read by the server and the CLI's audit. */
export const projectionsLayer = (config: Config) => sqliteProjectionsLayer({ path: path.join(config.dataDir, "projections.sqlite") });

/** With NATS_URL: JetStream carries the events and a KV bucket the rate limits, shared by every instance. */
export const messagingLayer = (config: Config) =>
  config.natsUrl === undefined
    ? Layer.mergeAll(inProcessEventBusLayer(), inMemoryRateLimiter)
    : Layer.mergeAll(jetStreamEventBusLayer({ namespace: config.natsNamespace }), kvRateLimiterLayer({ namespace: config.natsNamespace })).pipe(
        Layer.provide(natsConnectionLayer({ servers: config.natsUrl })),
      );

/** The outbox forwarder and the projections, running in the background for as long as the server does. */
const eventFlowLayer = (config: Config) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const usage = yield* UsageProjection;
      const keys = yield* KeyProjection;
      // A new NATS stream gets all of history; the in-process bus, new at every start, only what the projections lack.
      const startWithoutCheckpoint =
        config.natsUrl === undefined ? Effect.map(Effect.all([usage.position, keys.position]), (positions) => Math.min(...positions)) : Effect.succeed(0);
      yield* Effect.forkScoped(forwardEvents({ startWithoutCheckpoint }));
      yield* Effect.forkScoped(runProjection(usage));
      // Revocations must reach every instance within a second, even while the bus is down.
      yield* Effect.forkScoped(runProjection(keys, { storePollInterval: "500 millis" }));
    }),
  );

/** The HTTPS service: the core plus the read models, rate limiter, engines and result store. */
export const serverLayer = (config: Config, secrets: ServerSecrets) => {
  const images = boundedImageEngineLayer({
    concurrency: config.engineConcurrency,
    maxQueue: config.engineQueueLength,
    deadlineMs: config.engineDeadlineMs,
  }).pipe(Layer.provide(sharpImageEngineLayer({ maxPixels: config.maxImagePixels })), Layer.provide(SelfiePersonSegmenterLive()));
  return Layer.mergeAll(
    keyDirectoryLayer,
    eventFlowLayer(config),
    images,
    sharpImageInspectorLayer({ maxPixels: config.maxImagePixels }),
    filesystemResultStoreLayer({ directory: path.join(config.dataDir, "results") }),
    OnnxTryOnEngineLive({ deadlineMs: config.engineDeadlineMs }),
    ocrEngineLayer({ engine: config.ocrEngine, workers: config.ocrWorkers, deadlineMs: config.engineDeadlineMs }),
  ).pipe(
    Layer.provideMerge(Layer.mergeAll(projectionsLayer(config), messagingLayer(config))),
    Layer.provideMerge(coreLayer(config, secrets)),
  );
};
