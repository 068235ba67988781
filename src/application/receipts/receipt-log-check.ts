import { Effect } from "effect";
import { EventStore } from "../../ports/event-store.ts";
import { ReceiptLog } from "../../ports/receipt-log.ts";
import { allEvents, catchUpFromStore } from "../event-sourcing/projection-runner.ts";

/**
 * Holds the stored receipts log against the store: catches it up, then derives the log afresh
 * from the store's events up to the same position and compares leaf by leaf. A store edited since
 * the leaves were written shows here, and the log is withheld (nothing published) until
 * `itsctl ledger log rebuild`; rebuilt, it shows to customers as a checkpoint inconsistent with
 * the ones they saved.
 */
export const checkReceiptLog = Effect.gen(function* () {
  const log = yield* ReceiptLog;
  yield* catchUpFromStore(log);
  const upTo = yield* log.position;
  return { upTo, ...(yield* log.compareWith(allEvents(yield* EventStore), upTo)) };
});
