import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import { Effect } from "effect";
import type { Middleware } from "koa";
import type { RunEffect } from "./adapters/http/api/effect-runner.ts";
import { readEventFlowLag, watchEventFlowLag } from "./adapters/metrics/event-flow-lag.ts";
import { meteredImageEngine, meteredOcrEngine, meteredTryOnEngine } from "./adapters/metrics/metered-engines.ts";
import { meteredEventBus } from "./adapters/metrics/metered-event-bus.ts";
import { meteredEventStore } from "./adapters/metrics/metered-event-store.ts";
import { meteredRateLimiter } from "./adapters/metrics/metered-rate-limiter.ts";
import { startMetricsServer } from "./adapters/metrics/metrics-server.ts";
import { requestMetrics } from "./adapters/metrics/request-metrics.ts";
import { makeServiceMetrics } from "./adapters/metrics/service-metrics.ts";
import { underActiveSpan } from "./adapters/tracing/effect-spans.ts";
import { requestSpan } from "./adapters/tracing/request-span.ts";
import { tracedEventStore, tracedImageEngine, tracedOcrEngine, tracedResultStore, tracedTryOnEngine } from "./adapters/tracing/traced-ports.ts";
import type { Config } from "./config.ts";
import { type PortDecorators, same } from "./port-decorators.ts";

type LagServices = Effect.Services<typeof readEventFlowLag>;

/** What the server mounts for metrics and tracing; with both off, nothing (no decorator, no middleware). */
export interface Observability {
  readonly decorators: PortDecorators;
  /** Mounted first on the HTTPS app, in this order. */
  readonly httpMiddleware: ReadonlyArray<Middleware>;
  /** pino `mixin`: trace ids on every log line written under a span. */
  readonly logMixin: (() => object) | undefined;
  /** Runs use cases under the request's span. */
  readonly traceRun: <R>(run: RunEffect<R>) => RunEffect<R>;
  /** Once the services are built: serves /metrics (METRICS_PORT on HOST) and reads the event flow's lag at each scrape. */
  readonly start: (run: RunEffect<LagServices>) => Promise<{ readonly metricsPort: number | undefined }>;
  /** Closes the metrics listener and exports the spans still buffered. */
  readonly stop: () => Promise<void>;
}

/** The slots the composition gives each engine (see serverLayer): what its_engine_capacity reports. */
const engineSlots = (config: Config) => ({ image: config.engineConcurrency, ocr: config.ocrWorkers, tryon: 1 });

/**
 * Metrics when METRICS_PORT is set, traces when OTEL_EXPORTER_OTLP_ENDPOINT is (or a test hands a
 * span processor). Each is built by decorating ports and mounting middleware, so with both unset
 * the request path runs exactly as without this file.
 */
export const observabilityFor = async (config: Config, options: { readonly spanProcessor?: SpanProcessor } = {}): Promise<Observability> => {
  const metrics = config.metricsPort === undefined ? undefined : makeServiceMetrics();
  const traced = options.spanProcessor !== undefined || config.otlpEndpoint !== undefined;
  // The SDK and its exporter are loaded only when tracing is on: ~20 MiB and seconds of start-up otherwise.
  const sdk = traced ? await import("./adapters/tracing/tracing.ts") : undefined;
  const tracing = sdk?.startTracing({
    serviceName: config.otelServiceName,
    spanProcessor: options.spanProcessor ?? sdk.otlpSpanProcessor(),
    sampleRatio: config.traceSampleRatio,
  });
  const slots = engineSlots(config);
  // Metrics outside, so an append's time includes its span's small cost, as the caller sees it.
  const both = <S>(metered: ((shape: S) => S) | undefined, traced: ((shape: S) => S) | undefined): ((shape: S) => S) =>
    metered === undefined && traced === undefined
      ? same
      : (shape) => {
          const inner = traced ? traced(shape) : shape;
          return metered ? metered(inner) : inner;
        };
  let stopMetricsServer = async () => {};

  return {
    decorators: {
      eventStore: both(metrics && meteredEventStore(metrics), tracing && tracedEventStore(tracing.tracer)),
      eventBus: both(metrics && meteredEventBus(metrics), undefined),
      rateLimiter: both(metrics && meteredRateLimiter(metrics), undefined),
      imageEngine: both(metrics && meteredImageEngine(metrics, slots.image), tracing && tracedImageEngine(tracing.tracer)),
      ocrEngine: both(metrics && meteredOcrEngine(metrics, slots.ocr), tracing && tracedOcrEngine(tracing.tracer)),
      tryOnEngine: both(metrics && meteredTryOnEngine(metrics, slots.tryon), tracing && tracedTryOnEngine(tracing.tracer)),
      resultStore: both(undefined, tracing && tracedResultStore(tracing.tracer)),
    },
    httpMiddleware: [...(metrics ? [requestMetrics(metrics)] : []), ...(tracing ? [requestSpan(tracing.tracer)] : [])],
    logMixin: tracing && sdk?.activeTraceIds,
    traceRun: (run) => (tracing ? (effect) => run(underActiveSpan(effect)) : run),
    start: async (run) => {
      if (metrics === undefined || config.metricsPort === undefined) return { metricsPort: undefined };
      watchEventFlowLag(metrics, async () => {
        const exit = await run(readEventFlowLag.pipe(Effect.timeout("2 seconds")));
        if (exit._tag === "Failure") throw new Error("event-flow lag unavailable");
        return exit.value;
      });
      const server = await startMetricsServer({ registry: metrics.registry, host: config.host, port: config.metricsPort });
      stopMetricsServer = server.close;
      return { metricsPort: server.port };
    },
    stop: async () => {
      await stopMetricsServer();
      await tracing?.shutdown();
    },
  };
};
