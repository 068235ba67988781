import { Effect } from "effect";
import type { EventBusShape } from "../../ports/event-bus.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** Counts the notices the bus refuses for good (the forwarder logs and skips each). */
export const meteredEventBus =
  (metrics: ServiceMetrics) =>
  (bus: EventBusShape): EventBusShape => ({
    ...bus,
    publish: (event) => bus.publish(event).pipe(Effect.tapErrorTag("PublishRejected", () => Effect.sync(() => metrics.busPublishRefusals.inc()))),
  });
