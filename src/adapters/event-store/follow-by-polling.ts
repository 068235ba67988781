import { Duration, Effect, Option, Stream } from "effect";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { EventStoreShape, RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";

export interface PollingOptions {
  /** How long to wait after catching up before asking again. */
  readonly pollInterval: Duration.Input;
  /** Events fetched per read while catching up. */
  readonly batchSize?: number;
}

export const defaultPollInterval = Duration.millis(100);

/**
 * `follow` for stores without a push mechanism: page through `readAll` from `after`, and once a page
 * comes back short (caught up), wait `pollInterval` before each further read. Another process's
 * appends are seen because every read goes to the shared storage.
 */
export const followByPolling = (
  readAll: EventStoreShape["readAll"],
  after: number,
  options: PollingOptions,
): Stream.Stream<RecordedEvent, DependencyUnavailable | UndecodableEvent> => {
  const batchSize = options.batchSize ?? 500;
  return Stream.paginate({ cursor: after, caughtUp: false }, ({ cursor, caughtUp }) =>
    Effect.gen(function* () {
      if (caughtUp) yield* Effect.sleep(options.pollInterval);
      const events = yield* readAll({ after: cursor, limit: batchSize });
      const next = { cursor: events.at(-1)?.globalPosition ?? cursor, caughtUp: events.length < batchSize };
      return [events, Option.some(next)] as const;
    }),
  );
};
