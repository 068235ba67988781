import { Schema } from "effect";
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api";
import { AuditReportData } from "../../../../application/audit/audit-report.ts";
import { OperatorToken } from "../../api/api-security.ts";
import { Success } from "../../api/response-schemas.ts";
import { errorResponses } from "../../errors/documented-errors.ts";

export const AuditReportResponse = Success("AuditReportReply", AuditReportData);

/** The operators' routes (OPERATOR_TOKEN); part of the API's definition (api-definition.ts). */
export const audit = HttpApiGroup.make("audit", { topLevel: true })
  .add(
    HttpApiEndpoint.get("auditAccount", "/audit/accounts/:accountId", {
      params: { accountId: Schema.String.annotate({ identifier: "AccountId" }) },
      query: {
        from: Schema.optionalKey(
          Schema.String.annotate({ identifier: "AuditRangeStart", description: "YYYY-MM, YYYY-MM-DD (UTC) or an ISO 8601 date-time; inclusive" }),
        ),
        to: Schema.optionalKey(
          Schema.String.annotate({
            identifier: "AuditRangeEnd",
            description: "YYYY-MM, YYYY-MM-DD (UTC, the whole day or month included) or an ISO 8601 date-time",
          }),
        ),
      },
      success: AuditReportResponse.annotate({ description: "The audit report" }),
      error: errorResponses("Audit", ["InvalidRequest", "Unauthorized", "RateLimited", "NotFound", "DependencyUnavailable"]),
    })
      .annotate(OpenApi.Summary, "Audit one account: its quota ledger and key lifecycle replayed from the event store, checked against the projections")
      .annotate(OpenApi.Description, "Operators only. The same report as `itsctl audit --json`; `ok` is false when anything differs."),
  )
  .middleware(OperatorToken)
  .annotateMerge(OpenApi.annotations({ title: "Audit", description: "Operator-only routes." }));
