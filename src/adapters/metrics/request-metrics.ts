import type { Middleware } from "koa";
import { methodLabelOf, routeTemplateOf } from "../http/api/route-template.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/**
 * Times every HTTPS request into http_server_request_duration_seconds, labelled with the route
 * template the router matched. Mounted first, so refusals by later middleware are counted too.
 */
export const requestMetrics =
  (metrics: ServiceMetrics): Middleware =>
  async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      metrics.httpRequestDuration.observe(
        { method: methodLabelOf(ctx), route: routeTemplateOf(ctx), status_code: String(ctx.status) },
        (performance.now() - started) / 1000,
      );
    }
  };
