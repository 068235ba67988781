import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { FEATURES } from "../../domain/plan.ts";
import { RATE_LIMIT_BUCKET_LABELS } from "./rate-limit-buckets.ts";

/**
 * Every metric the service exposes, in one registry. Labels hold only small fixed sets (route
 * templates, operations, engine names, outcomes): never a key, token, email, id or raw path, so a
 * client cannot grow the series count and nothing secret reaches a scrape.
 */
export const makeServiceMetrics = () => {
  const registry = new Registry();
  // Process and Node.js collectors: memory, CPU, handles, event-loop lag, garbage collection.
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which `promtool check metrics` rejects; each is the sum over the
  // `type` label of its namesake without the suffix (nodejs_active_handles{type}), which stays.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) registry.removeSingleMetric(name);
  const registers = [registry];
  // The lag gauges are read when scraped, by whatever watchEventFlowLag installs (one read per scrape).
  const eventFlowLag: { refresh: (() => Promise<void>) | undefined } = { refresh: undefined };
  const collect = async () => {
    await eventFlowLag.refresh?.();
  };

  const metrics = {
    registry,
    eventFlowLag,
    httpRequestDuration: new Histogram({
      name: "http_server_request_duration_seconds",
      help: "Time to handle an HTTPS request, until its response is handed to Node.js, by method, route template and status code.",
      labelNames: ["method", "route", "status_code"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    transformations: new Counter({
      name: "its_transformations_total",
      help: "Transformations that ended, by operation and outcome (succeeded: committed and counted against the quota; failed: quota released).",
      labelNames: ["operation", "outcome"] as const,
      registers,
    }),
    quotaRefusals: new Counter({
      name: "its_quota_refusals_total",
      help: "Transformations refused because the account's monthly quota was used up (429 QUOTA_EXCEEDED).",
      labelNames: ["operation"] as const,
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: "its_rate_limit_refusals_total",
      help: "Requests refused by a token bucket (429): bucket=api_key for a key's rate, failed_auth for failed authentication per client address, console_sign_in for wrong console passwords per account or address.",
      labelNames: ["bucket"] as const,
      registers,
    }),
    engineInFlight: new Gauge({
      name: "its_engine_in_flight",
      help: "Jobs an engine holds now, running or waiting for a slot.",
      labelNames: ["engine"] as const,
      registers,
    }),
    engineQueueDepth: new Gauge({
      name: "its_engine_queue_depth",
      help: "Jobs waiting for an engine slot now (in flight beyond the engine's capacity).",
      labelNames: ["engine"] as const,
      registers,
    }),
    engineCapacity: new Gauge({
      name: "its_engine_capacity",
      help: "Jobs an engine runs at once (its slots).",
      labelNames: ["engine"] as const,
      registers,
    }),
    engineRefusals: new Counter({
      name: "its_engine_admission_refusals_total",
      help: "Jobs an engine turned away: reason=queue_full (503, queue full) or deadline (504, past the deadline).",
      labelNames: ["engine", "reason"] as const,
      registers,
    }),
    engineDuration: new Histogram({
      name: "its_engine_job_duration_seconds",
      help: "Time a job spent in an engine, waiting included, by engine and outcome.",
      labelNames: ["engine", "outcome"] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    eventStoreAppendDuration: new Histogram({
      name: "its_event_store_append_duration_seconds",
      help: "Appends to the event store, by outcome (ok, conflict: another writer was first and the command is decided again, error).",
      labelNames: ["outcome"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    eventStoreConflicts: new Counter({
      name: "its_event_store_conflicts_total",
      help: "Appends that lost an optimistic-concurrency race; each is retried on the fresh state.",
      registers,
    }),
    forwarderLagEvents: new Gauge({
      name: "its_event_forwarder_lag_events",
      help: "Store head position minus the forwarder's checkpoint: events not yet announced on the bus.",
      registers,
      collect,
    }),
    forwarderLagSeconds: new Gauge({
      name: "its_event_forwarder_lag_seconds",
      help: "Age of the oldest event in the store not yet on the bus; 0 when none is waiting.",
      registers,
      collect,
    }),
    projectionLagEvents: new Gauge({
      name: "its_projection_lag_events",
      help: "Store head position minus the projection's checkpoint: events it has not applied yet.",
      labelNames: ["projection"] as const,
      registers,
      collect,
    }),
    projectionLagSeconds: new Gauge({
      name: "its_projection_lag_seconds",
      help: "Age of the oldest event a projection has not applied yet; 0 when it is current.",
      labelNames: ["projection"] as const,
      registers,
      collect,
    }),
    busPublishRefusals: new Counter({
      name: "its_event_bus_publish_refusals_total",
      help: "Event notices the bus refused for good (malformed, or over its size limits): each logged at error level with the event's position and skipped.",
      registers,
    }),
    lagSampleFailures: new Counter({
      name: "its_event_flow_lag_sample_failures_total",
      help: "Scrapes at which the event-flow lag could not be read (store or bus unavailable); the lag gauges then keep their last value.",
      registers,
    }),
  };
  // Known series start at 0, so that rate() and increase() see their first event.
  for (const operation of FEATURES) {
    for (const outcome of ["succeeded", "failed"]) metrics.transformations.inc({ operation, outcome }, 0);
    metrics.quotaRefusals.inc({ operation }, 0);
  }
  for (const bucket of RATE_LIMIT_BUCKET_LABELS) metrics.rateLimitRefusals.inc({ bucket }, 0);
  return metrics;
};

export type ServiceMetrics = ReturnType<typeof makeServiceMetrics>;
