import { Effect, Exit, Option } from "effect";
import type { EventStoreShape } from "../../ports/event-store.ts";
import type { ServiceMetrics } from "./service-metrics.ts";
import { makeTransformationOutcomes } from "./transformation-outcomes.ts";

/** Times appends, counts lost optimistic-concurrency races, and counts transformations from what is appended. */
export const meteredEventStore =
  (metrics: ServiceMetrics) =>
  (store: EventStoreShape): EventStoreShape => {
    const countOutcomes = makeTransformationOutcomes(metrics);
    return {
      ...store,
      appendToStream: (streamName, events, options) =>
        Effect.suspend(() => {
          const started = performance.now();
          return store.appendToStream(streamName, events, options).pipe(
            Effect.onExit((exit) =>
              Effect.sync(() => {
                const error = Exit.findErrorOption(exit);
                const conflict = Option.isSome(error) && error.value._tag === "ConcurrencyConflict";
                const outcome = Exit.isSuccess(exit) ? "ok" : conflict ? "conflict" : "error";
                metrics.eventStoreAppendDuration.observe({ outcome }, (performance.now() - started) / 1000);
                if (conflict) metrics.eventStoreConflicts.inc();
                if (Exit.isSuccess(exit)) countOutcomes(streamName, events);
              }),
            ),
          );
        }),
    };
  };
