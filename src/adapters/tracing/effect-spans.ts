import { type Attributes, ROOT_CONTEXT, type Span, SpanStatusCode, trace, TraceFlags, type Tracer as OtelTracer } from "@opentelemetry/api";
import { Effect, Exit, Option, Tracer } from "effect";

const sampled = (span: Span): boolean => (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;

/** Effect's handle on an OpenTelemetry span: the parent of spans made inside the effect. */
const asEffectParent = (span: Span) => {
  const { traceId, spanId } = span.spanContext();
  return Tracer.externalSpan({ traceId, spanId, sampled: sampled(span) });
};

/**
 * Runs a use case under the request's span (the span active where it is called), so that spans
 * made inside it are that span's children. Effect carries the parent in the fiber's own context,
 * which stays right however fibers are scheduled; AsyncLocalStorage serves only the log lines.
 */
export const underActiveSpan = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const span = trace.getActiveSpan();
  return span === undefined ? effect : Effect.withParentSpan(effect, asEffectParent(span));
};

/**
 * `effect` as a child span of the span it runs under; untraced when it runs under none (background
 * work: the forwarder, projections), so no root span is made per poll, or under one that is not
 * sampled (nothing would be recorded).
 */
export const childSpan =
  (tracer: OtelTracer, name: string, attributes: Attributes = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Effect.option(Effect.currentParentSpan), (parent) => {
      if (Option.isNone(parent) || !parent.value.sampled) return effect;
      const { traceId, spanId } = parent.value;
      const parentContext = trace.setSpanContext(ROOT_CONTEXT, {
        traceId,
        spanId,
        traceFlags: parent.value.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      });
      const span = tracer.startSpan(name, { attributes }, parentContext);
      return effect.pipe(
        Effect.withParentSpan(asEffectParent(span)),
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit)) {
              const error = Exit.findErrorOption(exit);
              const tag = Option.isSome(error) ? String((error.value as { _tag?: unknown })._tag ?? "Failure") : "Defect";
              span.setStatus({ code: SpanStatusCode.ERROR, message: tag });
            }
            span.end();
          }),
        ),
      );
    });
