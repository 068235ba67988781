import path from "node:path";
import { Effect, Layer } from "effect";
import { ed25519NoteSignerLayer } from "./adapters/crypto/ed25519-note-signer.ts";
import { nodeChainCryptoLayer } from "./adapters/crypto/node-chain-crypto.ts";
import { cryptoIds } from "./adapters/ids/crypto-ids.ts";
import { sqliteProjectionsLayer } from "./adapters/projections/sqlite-projections.ts";
import { sqliteReceiptLogLayer } from "./adapters/projections/sqlite-receipt-log.ts";
import { blockListAddressRanges } from "./adapters/security/block-list-address-ranges.ts";
import { hmacSecretHasher } from "./adapters/security/hmac-secret-hasher.ts";
import type { ServerSecrets } from "./adapters/security/server-secret.ts";
import { StoreIdentity } from "./application/event-sourcing/store-identity.ts";
import { inProcessStreamLocks } from "./application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache } from "./application/event-sourcing/stream-state-cache.ts";
import { chainedEventStore } from "./application/hash-chains/chained-event-store.ts";
import { defaultServiceSettings, ServiceSettings } from "./application/settings.ts";
import type { Config } from "./config.ts";
import { eventStoreLayerFor } from "./event-store-registry.ts";
import { decorated, type PortDecorators, undecorated } from "./port-decorators.ts";
import { ChainCrypto } from "./ports/chain-crypto.ts";
import { systemClock } from "./ports/clock.ts";
import { EventStore } from "./ports/event-store.ts";
import { Ids } from "./ports/ids.ts";

/**
 * The composition root: which adapter stands behind each port is decided here (the core, which the
 * server and the CLI share) and in server-composition.ts (what only the server runs), from
 * configuration, and nowhere else.
 */
export const settingsLayer = (config: Config) =>
  Layer.succeed(ServiceSettings)({
    ...defaultServiceSettings,
    maxImageBytes: config.maxImageBytes,
    maxKeysPerAccount: config.maxKeysPerAccount,
    resultTtlMs: config.resultTtlSeconds * 1000,
    reservationTtlMs: config.quotaReservationTtlSeconds * 1000,
    rateOverride: config.rateOverride,
    maxQueuedJobs: config.jobs.maxQueuedPerAccount,
    jobLeaseMs: config.jobs.leaseSeconds * 1000,
    maxDocumentPages: config.maxDocumentPages,
    maxJobDocumentPages: config.maxJobDocumentPages,
  });

/**
 * The configured store as the application sees it: every append linked into its stream's hash
 * chain. `itsctl store migrate` opens stores with eventStoreLayerFor instead, to copy events verbatim.
 */
export const eventStoreLayer = (config: Config, store: StoreLayer = eventStoreLayerFor(config.eventStore, { sqliteSynchronous: config.sqliteSynchronous })) =>
  Layer.effect(EventStore)(
    Effect.gen(function* () {
      const inner = yield* EventStore;
      const crypto = yield* ChainCrypto;
      const ids = yield* Ids;
      return chainedEventStore(inner, { mac: crypto.mac, newEventId: ids.uuid });
    }),
  ).pipe(Layer.provide(store));

/** The event store beneath the hash chain: the configured one, or the Test layer's store in memory. */
export type StoreLayer = Layer.Layer<EventStore, unknown>;

/** What every entry point needs: the event store, time, ids, the key hasher and address ranges, the ledger's keys, the limits. */
export const coreLayer = (config: Config, secrets: ServerSecrets, decorators: PortDecorators = undecorated, store?: StoreLayer) =>
  Layer.mergeAll(
    decorated(EventStore, decorators.eventStore)(eventStoreLayer(config, store).pipe(Layer.provide(Layer.merge(nodeChainCryptoLayer(secrets), cryptoIds)))),
    nodeChainCryptoLayer(secrets),
    systemClock,
    cryptoIds,
    hmacSecretHasher(secrets.apiKeyHashKey),
    blockListAddressRanges,
    settingsLayer(config),
    lruStreamStateCache(),
    inProcessStreamLocks,
  );

/**
 * The receipts log (DATA_DIR/receipts.sqlite) and the key that signs it, derived from the server
 * secret so every instance signs alike. Its origin names the deployment's event store unless
 * LEDGER_LOG_ORIGIN names it: it is in every receipt, so it must not change with an address.
 */
export const receiptLogLayer = (config: Config, secrets: ServerSecrets) =>
  Layer.unwrap(
    Effect.map(StoreIdentity, ({ identity }) => {
      const origin = config.ledgerLogOrigin ?? `image-transformation-api/receipts/${identity}`;
      return Layer.merge(
        sqliteReceiptLogLayer({ path: path.join(config.dataDir, "receipts.sqlite"), origin }),
        ed25519NoteSignerLayer(origin, secrets.receiptLogSeed, config.ledgerKeyGeneration),
      );
    }),
  );

/** The projections (usage, key directory, jobs): one SQLite file under DATA_DIR, read by the server and the CLI's audit. */
export const projectionsLayer = (config: Config) => sqliteProjectionsLayer({ path: path.join(config.dataDir, "projections.sqlite") });
