import type { NewEvent } from "../../ports/event-store.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** Transformations begun by this process whose end is not recorded yet; more than this are forgotten oldest first. */
const OPEN_LIMIT = 10_000;

/**
 * Counts transformations and quota refusals from the events this process appends, so the counters
 * agree with the record the audit replays: a transformation counts once its outcome is stored.
 * The outcome events do not repeat the operation, so it is remembered from the request event.
 */
export const makeTransformationOutcomes = (metrics: ServiceMetrics) => {
  const operationOfStream = new Map<string, string>();
  return (streamName: string, events: ReadonlyArray<NewEvent>): void => {
    for (const event of events) {
      switch (event.type) {
        case "TransformationRequested": {
          if (operationOfStream.size >= OPEN_LIMIT) operationOfStream.delete(operationOfStream.keys().next().value!);
          operationOfStream.set(streamName, String(event.data["operation"]));
          break;
        }
        case "TransformationCompleted":
        case "TransformationFailed": {
          const operation = operationOfStream.get(streamName) ?? "unknown";
          operationOfStream.delete(streamName);
          metrics.transformations.inc({ operation, outcome: event.type === "TransformationCompleted" ? "succeeded" : "failed" });
          break;
        }
        case "QuotaReservationRefused":
          metrics.quotaRefusals.inc({ operation: String(event.data["operation"]) });
          break;
      }
    }
  };
};
