import type { Context } from "koa";

/** What requests that no route matched are labelled with (404, 405). */
export const UNMATCHED_ROUTE = "unmatched";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The route a request took, as its template (`/api/results/:resultId`), for metric labels and span
 * names: never the raw path, which carries ids and whatever a client invents. @koa/router records
 * the template it matched; `/healthz` is answered before the routers.
 */
export const routeTemplateOf = (ctx: Context): string => {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === "string") return matched;
  return ctx.path === "/healthz" && ctx.method === "GET" ? "/healthz" : UNMATCHED_ROUTE;
};

/** The request method, or `_OTHER` for one outside the standard set (as OpenTelemetry's conventions name it). */
export const methodLabelOf = (ctx: Context): string => (METHODS.has(ctx.method) ? ctx.method : "_OTHER");
