import path from "node:path";
import { Effect, Layer } from "effect";
import { documentReaderLayer } from "./adapters/documents/document-reader.ts";
import { inProcessEventBusLayer } from "./adapters/event-bus/in-process-event-bus.ts";
import { inMemoryEventStoreLayer } from "./adapters/event-store/in-memory-event-store.ts";
import { BlazeFaceDetectorLive } from "./adapters/faces/blazeface-face-detector.ts";
import { boundedImageEngineLayer } from "./adapters/image/bounded-image-engine.ts";
import { shippedTemplateFontsLayer } from "./adapters/image/fonts/shipped-template-fonts.ts";
import { sharpImageEngineLayer } from "./adapters/image/sharp-image-engine.ts";
import { sharpImageInspectorLayer } from "./adapters/image/sharp-image-inspector.ts";
import { ClassicPdfJoinerLive } from "./adapters/pdf/classic-pdf-joiner.ts";
import { inMemoryRateLimiter } from "./adapters/rate-limit/in-memory-rate-limiter.ts";
import { argon2PasswordHasher } from "./adapters/security/argon2-password-hasher.ts";
import type { ServerSecrets } from "./adapters/security/server-secret.ts";
import { SelfiePersonSegmenterLive } from "./adapters/segmentation/selfie-person-segmenter.ts";
import { OnnxTryOnEngineLive } from "./adapters/tryon/onnx-tryon-engine.ts";
import { keyDirectoryLayer } from "./application/access/key-directory.ts";
import { forwardEvents } from "./application/event-sourcing/forwarder.ts";
import { runProjection } from "./application/event-sourcing/projection-runner.ts";
import { StoreIdentity, storeIdentityLayer } from "./application/event-sourcing/store-identity.ts";
import { makeStreamSealer } from "./application/hash-chains/seal-stream-heads.ts";
import { jobWakeupsLayer } from "./application/jobs/job-wakeups.ts";
import { checkReceiptLog } from "./application/receipts/receipt-log-check.ts";
import { coreLayer, projectionsLayer, receiptLogLayer, type StoreLayer } from "./composition.ts";
import type { Config } from "./config.ts";
import { jetStreamEventBusLayer, kvRateLimiterLayer, natsConnectionLayer, type NatsLayer } from "./lazy-adapters.ts";
import { ocrEngineLayerFor } from "./ocr-engine-registry.ts";
import { decorated, type PortDecorators, undecorated } from "./port-decorators.ts";
import { ImageEngine } from "./ports/engines/image-engine.ts";
import { OcrEngine } from "./ports/engines/ocr-engine.ts";
import { TryOnEngine } from "./ports/engines/tryon-engine.ts";
import { EventBus } from "./ports/event-bus.ts";
import { JobProjection, KeyProjection, UsageProjection } from "./ports/projections.ts";
import { RateLimiter } from "./ports/rate-limiter.ts";
import { ReceiptLog } from "./ports/receipt-log.ts";
import { ResultStore } from "./ports/result-store.ts";
import { resultStoreLayerFor } from "./result-store-registry.ts";
import { webhookFlowLayer, webhookPortsLayer } from "./webhook-composition.ts";

/**
 * The composition root of the HTTPS service: the core (composition.ts) plus the read models, the
 * messaging, the engines and the result store. Apart from composition.ts so that the command line,
 * which composes only the core, does not load the engines (sharp, onnxruntime, tesseract.js).
 */

/**
 * With NATS_URL: JetStream carries the events (of the store this process runs on: see
 * StoreIdentity) and a KV bucket the rate limits, shared by every instance.
 */
const messagingLayer = (config: Config, nats: NatsLayer | undefined, decorators: PortDecorators) =>
  nats === undefined
    ? Layer.mergeAll(decorated(EventBus, decorators.eventBus)(inProcessEventBusLayer()), decorated(RateLimiter, decorators.rateLimiter)(inMemoryRateLimiter))
    : Layer.mergeAll(
        decorated(
          EventBus,
          decorators.eventBus,
        )(Layer.unwrap(Effect.map(StoreIdentity, ({ identity }) => jetStreamEventBusLayer({ namespace: config.natsNamespace, storeIdentity: identity })))),
        decorated(RateLimiter, decorators.rateLimiter)(kvRateLimiterLayer({ namespace: config.natsNamespace })),
      ).pipe(Layer.provide(nats));

/** One NATS connection (NATS_URL) for everything that uses it: one layer value, so it is built once. */
const natsLayerFor = (config: Config): NatsLayer | undefined =>
  config.natsUrl === undefined ? undefined : natsConnectionLayer({ servers: config.natsUrl, auth: config.natsAuth });

/**
 * The outbox forwarder and the projections, running in the background for as long as the server
 * does. Projections built from another store (DATA_DIR kept while the store was replaced) are
 * emptied first and caught up from this one.
 */
const eventFlowLayer = (config: Config) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const usage = yield* UsageProjection;
      const keys = yield* KeyProjection;
      const jobs = yield* JobProjection;
      const receipts = yield* ReceiptLog;
      const { identity } = yield* StoreIdentity;
      for (const projection of [usage, keys, jobs, receipts]) {
        const binding = yield* projection.bindToStore(identity);
        if (binding._tag === "Reset") {
          yield* Effect.logWarning(
            `projection ${projection.name} (${path.join(config.dataDir, "projections.sqlite")}) was built from event store ${binding.previous ?? "(not recorded)"}, ` +
              `but this service's event store is ${identity}: emptied it; it is rebuilt from this store`,
          );
        }
      }
      // A new NATS stream gets all of history; the in-process bus, new at every start, only what the projections lack.
      const startWithoutCheckpoint =
        config.natsUrl === undefined
          ? Effect.map(Effect.all([usage.position, keys.position, jobs.position, receipts.position]), (positions) => Math.min(...positions))
          : Effect.succeed(0);
      yield* Effect.forkScoped(forwardEvents({ startWithoutCheckpoint }));
      yield* Effect.forkScoped(runProjection(usage));
      // The receipts log is held against the store before it follows it: an edited store withholds it.
      yield* Effect.forkScoped(
        checkReceiptLog.pipe(
          Effect.tap((check) =>
            check.firstDifference === undefined
              ? Effect.logInfo(`receipts log: ${check.stored} leaves agree with the event store up to position ${check.upTo}`)
              : Effect.logError(
                  `receipts log withheld: it differs from the event store from leaf ${check.firstDifference} on (stored ${check.stored}, the store makes ${check.derived}); ` +
                    "nothing of it is published until an operator runs itsctl ledger log rebuild and restarts the service",
                ),
          ),
          Effect.catchCause((cause) => Effect.logWarning("receipts log: the check against the store failed; it follows the store unchecked", cause)),
          Effect.andThen(runProjection(receipts)),
        ),
      );
      // Revocations must reach every instance within a second, even while the bus is down.
      yield* Effect.forkScoped(runProjection(keys, { storePollInterval: "500 millis" }));
      // Every instance's job runner must find a new job (or one whose holder died) within a second, even while the bus is down.
      yield* Effect.forkScoped(runProjection(jobs, { storePollInterval: "500 millis" }));
      if (config.ledgerSealIntervalSeconds > 0) yield* Effect.forkScoped(sealPeriodically(config.ledgerSealIntervalSeconds));
    }),
  );

/**
 * The ledger seal on a schedule: first when the newest seal is one interval old (at once after a
 * long stop), then every interval; a failed seal is logged and tried again at the next tick, never fatal.
 */
const sealPeriodically = (intervalSeconds: number) => {
  const sealer = makeStreamSealer({ intervalSeconds });
  const tick = sealer.seal({ kind: "service", task: "periodic ledger seal" }).pipe(
    Effect.catchCause((cause) => Effect.logWarning("ledger seal failed; trying again at the next interval", cause)),
    Effect.andThen(Effect.sleep(`${intervalSeconds} seconds`)),
  );
  return sealer.untilDue.pipe(
    Effect.orElseSucceed(() => intervalSeconds * 1000),
    Effect.flatMap((ms) => Effect.sleep(ms)),
    Effect.andThen(Effect.forever(tick)),
  );
};

/**
 * The HTTPS service: the core plus the read models, rate limiter, engines and result store. `store`
 * replaces the configured event store (testServerLayer).
 */
export const serverLayer = (config: Config, secrets: ServerSecrets, decorators: PortDecorators = undecorated, store?: StoreLayer) => {
  const nats = natsLayerFor(config);
  const images = boundedImageEngineLayer({
    concurrency: config.engineConcurrency,
    ...(config.engineQueueLength === undefined ? {} : { maxQueue: config.engineQueueLength }),
    deadlineMs: config.engineDeadlineMs,
  }).pipe(
    Layer.provide(sharpImageEngineLayer({ maxPixels: config.maxImagePixels })),
    Layer.provide(Layer.merge(SelfiePersonSegmenterLive(), BlazeFaceDetectorLive())),
  );
  return Layer.mergeAll(
    keyDirectoryLayer,
    jobWakeupsLayer,
    eventFlowLayer(config),
    webhookFlowLayer,
    decorated(ImageEngine, decorators.imageEngine)(images),
    sharpImageInspectorLayer({ maxPixels: config.maxImagePixels }),
    shippedTemplateFontsLayer(config.dataDir),
    documentReaderLayer({
      // The larger limit: the use case holds a request to the smaller one (recognize-text.ts).
      maxPages: Math.max(config.maxDocumentPages, config.maxJobDocumentPages),
      maxPixels: config.maxImagePixels,
      deadlineMs: config.engineDeadlineMs,
      memoryBytes: config.documentMemoryBytes,
    }).pipe(Layer.provide(sharpImageInspectorLayer({ maxPixels: config.maxImagePixels }))),
    decorated(ResultStore, decorators.resultStore)(resultStoreLayerFor(config.resultStore, nats)),
    decorated(TryOnEngine, decorators.tryOnEngine)(OnnxTryOnEngineLive({ deadlineMs: config.engineDeadlineMs })),
    decorated(OcrEngine, decorators.ocrEngine)(ocrEngineLayerFor(config.ocrEngine, { workers: config.ocrWorkers, deadlineMs: config.engineDeadlineMs })),
    ClassicPdfJoinerLive,
    argon2PasswordHasher,
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(projectionsLayer(config), receiptLogLayer(config, secrets), messagingLayer(config, nats, decorators), webhookPortsLayer(config, secrets)),
    ),
    Layer.provideMerge(storeIdentityLayer),
    Layer.provideMerge(coreLayer(config, secrets, decorators, store)),
  );
};

/**
 * The Test layer of the service, beside serverLayer (the Default): every port on its in-process
 * adapter (the event store in memory, the in-memory rate limiter and event bus, results and
 * projections under the test's DATA_DIR) and the real engines, so that an HTTP test serves the real
 * app in its own process. Configure it with loadConfig on a temporary DATA_DIR and no NATS_URL.
 */
export const testServerLayer = (config: Config, secrets: ServerSecrets, decorators: PortDecorators = undecorated) => {
  if (config.natsUrl !== undefined) throw new Error("testServerLayer runs without NATS_URL");
  return serverLayer(config, secrets, decorators, inMemoryEventStoreLayer());
};
