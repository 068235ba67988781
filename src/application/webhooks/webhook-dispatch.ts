import { Effect, Schedule } from "effect";
import { Ids } from "../../ports/ids.ts";
import { WebhookIndex } from "../../ports/webhook-index.ts";
import { runProjection } from "../event-sourcing/projection-runner.ts";
import { fanOutJobEnds } from "./webhook-fan-out.ts";
import { sendDueDeliveries } from "./webhook-sender.ts";
import { WebhookSettings } from "./webhook-settings.ts";

/**
 * Webhooks in the background, for as long as the server runs: the index follows the store (job
 * ends, deliveries), and on every tick the job ends become deliveries and the due deliveries are
 * sent. Everything it acts on is read back from the store, so a restart (or another instance)
 * picks up where this one stopped.
 */
export const runWebhookDispatch = Effect.gen(function* () {
  const index = yield* WebhookIndex;
  const { pollMs } = yield* WebhookSettings;
  const worker = `sender-${(yield* Ids).uuid()}`;
  yield* Effect.forkScoped(runProjection(index.jobEnds, { storePollInterval: `${pollMs} millis` }));
  yield* Effect.forkScoped(runProjection(index.deliveries, { storePollInterval: `${pollMs} millis` }));
  const tick = Effect.andThen(fanOutJobEnds, sendDueDeliveries(worker)).pipe(
    Effect.catchCause((cause) => Effect.logWarning("webhooks: a dispatch tick failed; trying again", cause)),
  );
  return yield* Effect.repeat(tick, Schedule.spaced(`${pollMs} millis`));
});
