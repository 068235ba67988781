import path from "node:path";
import { Layer } from "effect";
import { defaultServiceSettings, ServiceSettings } from "./application/settings.ts";
import type { Config } from "./config.ts";
import { sqliteEventStoreLayer } from "./adapters/event-store/sqlite-event-store.ts";
import { cryptoIds } from "./adapters/ids/crypto-ids.ts";
import { hmacSecretHasher } from "./adapters/security/hmac-secret-hasher.ts";
import type { ServerSecrets } from "./adapters/security/server-secret.ts";
import { systemClock } from "./ports/clock.ts";

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
    rateOverride: config.rateOverride,
  });

export const eventStoreLayer = (config: Config) => sqliteEventStoreLayer({ path: path.join(config.dataDir, "events.sqlite") });

/** What every entry point needs: the event store, time, ids, the key hasher, the limits. */
export const coreLayer = (config: Config, secrets: ServerSecrets) =>
  Layer.mergeAll(eventStoreLayer(config), systemClock, cryptoIds, hmacSecretHasher(secrets.apiKeyHashKey), settingsLayer(config));
