import { Effect, Option } from "effect";
import { Clock } from "../../ports/clock.ts";
import { EventBus, eventCategory } from "../../ports/event-bus.ts";
import { EventStore } from "../../ports/event-store.ts";
import { KeyProjection, UsageProjection } from "../../ports/projections.ts";
import { LAG_COUNT_LIMIT, type ServiceMetrics } from "./service-metrics.ts";

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
 * How far the event flow trails the store, read through the ports: the events after the
 * forwarder's checkpoint, and after each projection's position (only its own category: events of
 * others never reach it from the bus). Reads at most LAG_COUNT_LIMIT events per position.
 */
export const readEventFlowLag = Effect.gen(function* () {
  const store = yield* EventStore;
  const bus = yield* EventBus;
  const now = (yield* Clock).now().getTime();
  const waitingAfter = (after: number, category?: string) =>
    store.readAll({ after, limit: LAG_COUNT_LIMIT }).pipe(
      Effect.map((page): Lag => {
        const waiting = category === undefined ? page : page.filter((event) => eventCategory(event.streamName) === category);
        const oldest = waiting[0];
        return { events: waiting.length, seconds: oldest === undefined ? 0 : Math.max(0, (now - Date.parse(oldest.recordedAt)) / 1000) };
      }),
    );
  const checkpoint = yield* bus.publishedThrough;
  const forwarder = Option.isSome(checkpoint) ? yield* waitingAfter(checkpoint.value) : undefined;
  const projections = yield* Effect.forEach([yield* UsageProjection, yield* KeyProjection], (projection) =>
    Effect.flatMap(projection.position, (position) => waitingAfter(position, projection.category)).pipe(
      Effect.map((lag) => ({ projection: projection.name, ...lag })),
    ),
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
