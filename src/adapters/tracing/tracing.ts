import { context, propagation, trace, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, ParentBasedSampler, type SpanProcessor, TraceIdRatioBasedSampler, TracerProvider } from "@opentelemetry/sdk-trace";

export interface Tracing {
  readonly tracer: Tracer;
  /** Exports what is still buffered, then stops. */
  readonly shutdown: () => Promise<void>;
}

/** Spans batched to the OTLP/HTTP endpoint the standard variables name (OTEL_EXPORTER_OTLP_ENDPOINT and its kin). */
export const otlpSpanProcessor = (): SpanProcessor => new BatchSpanProcessor({ exporter: new OTLPTraceExporter() });

/**
 * The OpenTelemetry SDK, registered globally: spans go to `spanProcessor`, the active span follows
 * async calls (AsyncLocalStorage) so log lines can name it, and a W3C `traceparent` header from a
 * gateway in front continues its trace. Only manual spans are made (see request-span.ts and
 * traced-ports.ts): no auto-instrumentation patches modules behind the service's back.
 */
export const startTracing = (options: { readonly serviceName: string; readonly spanProcessor: SpanProcessor; readonly sampleRatio: number }): Tracing => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName }),
    // A share of new traces; a trace a caller started follows the caller's decision.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }),
    spanProcessors: [options.spanProcessor],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    tracer: provider.getTracer("image-transformation-api"),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
};

/** For JSON log lines: the ids of the span active where the line is written (pino `mixin`). */
export const activeTraceIds = (): Record<string, string> => {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
};
