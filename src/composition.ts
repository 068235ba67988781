import path from "node:path";
import { Layer } from "effect";
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
import { boundedImageEngineLayer } from "./adapters/image/bounded-image-engine.ts";
import { sharpImageEngineLayer } from "./adapters/image/sharp-image-engine.ts";
import { sharpImageInspectorLayer } from "./adapters/image/sharp-image-inspector.ts";
import { inMemoryRateLimiter } from "./adapters/rate-limit/in-memory-rate-limiter.ts";
import { filesystemResultStoreLayer } from "./adapters/results/filesystem-result-store.ts";
import { SelfiePersonSegmenterLive } from "./adapters/segmentation/selfie-person-segmenter.ts";
import { OnnxTryOnEngineLive } from "./adapters/tryon/onnx-tryon-engine.ts";

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
  Layer.mergeAll(eventStoreLayer(config), systemClock, cryptoIds, hmacSecretHasher(secrets.apiKeyHashKey), settingsLayer(config));

/** The HTTPS service: the core plus the read models, rate limiter, engines and result store. */
export const serverLayer = (config: Config, secrets: ServerSecrets) => {
  const images = boundedImageEngineLayer({
    concurrency: config.engineConcurrency,
    maxQueue: config.engineQueueLength,
    deadlineMs: config.engineDeadlineMs,
  }).pipe(Layer.provide(sharpImageEngineLayer({ maxPixels: config.maxImagePixels })), Layer.provide(SelfiePersonSegmenterLive()));
  return Layer.mergeAll(
    keyDirectoryLayer,
    inMemoryRateLimiter,
    images,
    sharpImageInspectorLayer({ maxPixels: config.maxImagePixels }),
    filesystemResultStoreLayer({ directory: path.join(config.dataDir, "results") }),
    OnnxTryOnEngineLive({ deadlineMs: config.engineDeadlineMs }),
  ).pipe(Layer.provideMerge(coreLayer(config, secrets)));
};
