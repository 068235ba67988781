import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import type { Middleware } from "koa";
import { methodLabelOf, routeTemplateOf } from "../http/api/route-template.ts";

/**
 * One SERVER span per HTTPS request, active while the request is handled. It is named and
 * labelled with the route template once routing is done; the raw path and query (ids, result
 * URL signatures) are never recorded.
 */
export const requestSpan =
  (tracer: Tracer): Middleware =>
  async (ctx, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const method = methodLabelOf(ctx);
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      // An unsampled span records nothing: skip the work (it still carries the ids the logs show).
      if (span.isRecording()) {
        const route = routeTemplateOf(ctx);
        span.updateName(`${method} ${route}`);
        span.setAttributes({ "http.request.method": method, "url.scheme": "https", "http.route": route, "http.response.status_code": ctx.status });
        if (typeof ctx.state.requestId === "string") span.setAttribute("its.request_id", ctx.state.requestId);
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
