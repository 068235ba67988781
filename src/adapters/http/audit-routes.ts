import Router from "@koa/router";
import { Effect } from "effect";
import { auditAccount } from "../../application/audit.ts";
import { parseAuditRange } from "../../application/audit-range.ts";
import type { Clock } from "../../ports/clock.ts";
import type { EventStore } from "../../ports/event-store.ts";
import type { KeyProjection, UsageProjection } from "../../ports/projections.ts";
import type { RateLimiter } from "../../ports/rate-limiter.ts";
import { AuditReportResponse } from "./api-definition.ts";
import { respondWith, type RunEffect } from "./effect-runner.ts";
import { operatorCredential } from "./middleware/operator-credential.ts";

export interface AuditRoutesOptions {
  readonly run: RunEffect<EventStore | Clock | UsageProjection | KeyProjection | RateLimiter>;
  /** OPERATOR_TOKEN; undefined closes the routes. */
  readonly operatorToken: string | undefined;
}

const queryText = (value: string | ReadonlyArray<string> | undefined): string | undefined => (typeof value === "string" ? value : undefined);

/** GET /api/audit/accounts/:accountId?from=&to=: the report `itsctl audit --json` prints, for auditors. */
export const auditRoutes = (options: AuditRoutesOptions): Router => {
  const { run } = options;
  const router = new Router({ prefix: "/api/audit" });
  router.get("/accounts/:accountId", operatorCredential(options.operatorToken, run), (ctx) =>
    respondWith(
      ctx,
      run,
      parseAuditRange(queryText(ctx.query.from), queryText(ctx.query.to)).pipe(Effect.flatMap((range) => auditAccount(ctx.params.accountId ?? "", range))),
      AuditReportResponse,
      (report) => report,
    ),
  );
  return router;
};
