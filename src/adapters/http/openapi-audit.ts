/** The operator-only audit route in the OpenAPI document (see openapi-document.ts). */
export const operatorSecurityScheme = {
  operator: { type: "http", scheme: "bearer", description: "The operator credential (OPERATOR_TOKEN); API keys do not open these routes." },
} as const;

const count = { type: "integer" } as const;
const nullableString = { type: ["string", "null"] } as const;

export const auditPaths = {
  "/audit/accounts/{accountId}": {
    get: {
      summary: "Audit one account: its quota ledger and key lifecycle replayed from the event store, checked against the projections",
      description:
        "Operators only. The history lists every account and quota event in the range (what, when, which key, which request); " +
        "`verification` compares the replayed totals with the usage and key projections (as of the position each reached) and with the ledgers' state. " +
        "`ok` is false when anything differs, and `verification.differences` names each difference. The same report as `itsctl audit --json`.",
      security: [{ operator: [] }],
      parameters: [
        { name: "accountId", in: "path", required: true, schema: { type: "string" } },
        {
          name: "from",
          in: "query",
          required: false,
          schema: { type: "string" },
          description: "YYYY-MM, YYYY-MM-DD (UTC) or an ISO 8601 date-time; inclusive",
        },
        {
          name: "to",
          in: "query",
          required: false,
          schema: { type: "string" },
          description: "YYYY-MM, YYYY-MM-DD (UTC, the whole day or month included) or an ISO 8601 date-time",
        },
      ],
      responses: {
        200: {
          description: "The audit report",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["success", "data"],
                properties: {
                  success: { const: true },
                  data: {
                    type: "object",
                    properties: {
                      accountId: { type: "string" },
                      generatedAt: { type: "string", format: "date-time" },
                      range: { type: "object", properties: { from: nullableString, to: nullableString } },
                      periods: { type: "array", items: { type: "string", description: "YYYY-MM" } },
                      account: {
                        type: "object",
                        properties: { email: { type: "string" }, name: { type: "string" }, plan: { type: "string" }, openedAt: { type: "string" } },
                      },
                      history: {
                        type: "array",
                        items: {
                          type: "object",
                          properties: {
                            position: count,
                            at: { type: "string", format: "date-time" },
                            type: { type: "string", description: "the event type, e.g. QuotaCommitted, ApiKeyRevoked" },
                            what: { type: "string" },
                            keyId: nullableString,
                            requestId: nullableString,
                            operation: nullableString,
                            period: nullableString,
                            actor: {
                              type: ["object", "null"],
                              description:
                                "who acted: { kind: api-key, keyId, accountId }, { kind: operator, tool: itsctl, user, host }, { kind: console, accountId, sessionId } or { kind: service, task }; null for events recorded before actors were",
                            },
                          },
                        },
                      },
                      totals: {
                        type: "object",
                        description: "reserved, committed (transformations), released and refused, in all and per period, operation and key",
                        properties: { reserved: count, committed: count, released: count, refused: count, lines: { type: "array", items: { type: "object" } } },
                      },
                      keys: {
                        type: "array",
                        items: {
                          type: "object",
                          properties: { keyId: { type: "string" }, name: { type: "string" }, createdAt: { type: "string" }, revokedAt: nullableString },
                        },
                      },
                      verification: {
                        type: "object",
                        properties: {
                          storePosition: count,
                          usageProjectionPosition: count,
                          keyProjectionPosition: count,
                          compared: count,
                          differences: {
                            type: "array",
                            items: {
                              type: "object",
                              properties: { source: { type: "string" }, subject: { type: "string" }, field: { type: "string" }, replayed: {}, recorded: {} },
                            },
                          },
                          notes: { type: "array", items: { type: "string" } },
                        },
                      },
                      ok: { type: "boolean" },
                    },
                  },
                },
              },
            },
          },
        },
        400: { description: "INVALID_REQUEST: from or to is not a date", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        401: { description: "UNAUTHORIZED: not the operator credential", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        404: { description: "NOT_FOUND: no such account", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        429: {
          description: "RATE_LIMIT_EXCEEDED: too many failed credentials from this address",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    },
  },
} as const;
