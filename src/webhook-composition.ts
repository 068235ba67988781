import path from "node:path";
import { Effect, Layer } from "effect";
import { nodeWebhookCryptoLayer } from "./adapters/crypto/node-webhook-crypto.ts";
import { sqliteWebhookIndexLayer } from "./adapters/projections/sqlite-webhook-index.ts";
import type { ServerSecrets } from "./adapters/security/server-secret.ts";
import { webhookTransportLayer } from "./adapters/webhooks/https-webhook-transport.ts";
import { StoreIdentity } from "./application/event-sourcing/store-identity.ts";
import { runWebhookDispatch } from "./application/webhooks/webhook-dispatch.ts";
import { defaultWebhookSettings, WebhookSettings } from "./application/webhooks/webhook-settings.ts";
import type { Config } from "./config.ts";
import { WebhookIndex } from "./ports/webhook-index.ts";

/**
 * Webhooks' part of the server's composition (server-composition.ts): the ports' adapters, from
 * configuration, and the dispatcher that runs in the background.
 */
export const webhookPortsLayer = (config: Config, secrets: ServerSecrets) =>
  Layer.mergeAll(
    nodeWebhookCryptoLayer(secrets.webhookSecretKey),
    webhookTransportLayer({ allowInsecureTargets: config.webhooks.allowInsecureTargets }),
    sqliteWebhookIndexLayer({ path: path.join(config.dataDir, "projections.sqlite") }),
    Layer.succeed(WebhookSettings)({
      ...defaultWebhookSettings,
      maxEndpoints: config.webhooks.maxEndpoints,
      retryScheduleSeconds: config.webhooks.retryScheduleSeconds,
      disableAfterMs: config.webhooks.disableAfterSeconds * 1000,
    }),
  );

/** The webhook index bound to this store (emptied when it was built from another) and the dispatcher, for as long as the server runs. */
export const webhookFlowLayer = Layer.effectDiscard(
  Effect.gen(function* () {
    const index = yield* WebhookIndex;
    const { identity } = yield* StoreIdentity;
    for (const projection of [index.jobEnds, index.deliveries]) {
      const binding = yield* projection.bindToStore(identity);
      if (binding._tag === "Reset")
        yield* Effect.logWarning(`projection ${projection.name} was built from another event store: emptied; rebuilt from this one`);
    }
    yield* Effect.forkScoped(runWebhookDispatch);
  }),
);
