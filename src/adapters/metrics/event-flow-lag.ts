import { Effect, Option } from "effect";
import { Clock } from "../../ports/clock.ts";
import { EventBus } from "../../ports/event-bus.ts";
import { EventStore } from "../../ports/event-store.ts";
import { JobProjection, KeyProjection, UsageProjection } from "../../ports/projections.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

export interface Lag {
  readonly events: number;
  readonly seconds: number;
}

export interface EventFlowLag {
  /** Undefined until the forwarder has a checkpoint on the bus (the first page it publishes). */
  readonly forwarder: Lag | undefined;
  readonly projections: ReadonlyArray<Lag & { readonly projection: string }>;
}

/**
 * How far the event flow trails the store, read through the ports: the store's head position
 * minus the forwarder's checkpoint, and minus each projection's position, whatever lies between
 * (projections take every notice, so each follows the whole store). The age is the oldest waiting
 * event's: one event read per position that trails, none for a current one.
 */
export const readEventFlowLag = Effect.gen(function* () {
  const store = yield* EventStore;
  const bus = yield* EventBus;
  const now = (yield* Clock).now().getTime();
  const head = yield* store.headPosition;
  const lagAfter = (position: number) =>
    position >= head
      ? Effect.succeed<Lag>({ events: 0, seconds: 0 })
      : store.readAll({ after: position, limit: 1 }).pipe(
          Effect.map(([oldest]): Lag => ({
            events: head - position,
            seconds: oldest === undefined ? 0 : Math.max(0, (now - Date.parse(oldest.recordedAt)) / 1000),
          })),
        );
  const checkpoint = yield* bus.publishedThrough;
  const forwarder = Option.isSome(checkpoint) ? yield* lagAfter(checkpoint.value) : undefined;
  const projections = yield* Effect.forEach([yield* UsageProjection, yield* KeyProjection, yield* JobProjection], (projection) =>
    Effect.flatMap(projection.position, lagAfter).pipe(Effect.map((lag) => ({ projection: projection.name, ...lag }))),
  );
  return { forwarder, projections } satisfies EventFlowLag;
});

/** Concurrent collectors of one scrape share a reading taken within this long. */
const SHARED_READING_MS = 1000;

/** Fills the lag gauges at every scrape from `read` (readEventFlowLag, run by the service's runtime). */
export const watchEventFlowLag = (metrics: ServiceMetrics, read: () => Promise<EventFlowLag>): void => {
  let reading: { readonly at: number; readonly done: Promise<void> } | undefined;
  const refresh = async () => {
    const lag = await read();
    if (lag.forwarder !== undefined) {
      metrics.forwarderLagEvents.set(lag.forwarder.events);
      metrics.forwarderLagSeconds.set(lag.forwarder.seconds);
    }
    for (const { projection, events, seconds } of lag.projections) {
      metrics.projectionLagEvents.set({ projection }, events);
      metrics.projectionLagSeconds.set({ projection }, seconds);
    }
  };
  metrics.eventFlowLag.refresh = () => {
    const now = performance.now();
    if (reading === undefined || now - reading.at > SHARED_READING_MS) {
      reading = { at: now, done: refresh().catch(() => metrics.lagSampleFailures.inc()) };
    }
    return reading.done;
  };
};
