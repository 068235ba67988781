import { Schema } from "effect";

/**
 * What every response body of the API shares (docs/api-decisions.md): the success envelope
 * `{ success: true, data }`, with each operation's `data` declared by its group (groups/<group>/),
 * and the error body. Handlers encode what they send through these, and the OpenAPI document is
 * generated from them, so what is documented is what is sent. Fields are added, never removed or renamed.
 */
const Text = Schema.String;

/** `{ success: true, data }` with the operation's data; `identifier` names it in the document. */
export const Success = <S extends Schema.Top>(identifier: string, data: S) => Schema.Struct({ success: Schema.Literal(true), data }).annotate({ identifier });

export const FieldIssue = Schema.Struct({ path: Text, message: Text }).annotate({ identifier: "ErrorDetail" });

/** The error body; each response lists the codes its status can carry (see errors/error-catalog.ts). */
export const ErrorBody = <const Codes extends ReadonlyArray<string>>(codes: Codes | undefined) =>
  Schema.Struct({
    success: Schema.Literal(false),
    error: Schema.Struct({
      code: codes === undefined ? Text : codes.length === 1 ? Schema.Literal(codes[0]!) : Schema.Literals(codes),
      message: Text,
      details: Schema.optionalKey(Schema.Array(FieldIssue).annotate({ description: "one entry per offending field" })),
      requestId: Text.annotate({
        description: "this request's id, as X-Request-Id gives it: a billable request's receipts are found under it (GET /api/receipts/{requestId})",
      }),
    }),
  });

/** GET /healthz, outside the API: for load balancers. */
export const HealthResponse = Success("HealthResponse", Schema.Struct({ status: Schema.Literal("ok") }));
