import { Schema } from "effect";

/**
 * The fields many events share, each described once: docs/events.md is generated from these
 * descriptions, so that an auditor reads what a field means without the code.
 */
export const described = <S extends Schema.Top>(schema: S, description: string): S["Rebuild"] => schema.annotate({ description });

export const At = described(Schema.String, "when the decision was made: ISO 8601 UTC with milliseconds (the service's clock)");
export const AccountId = described(Schema.String, "the account's id (`acc_…`)");
export const KeyId = described(Schema.String, "the API key's id (`key_…`), the public half of the key");
export const RequestId = described(
  Schema.String,
  "the id of the request the units are held for: the `X-Request-Id` (and an error's `error.requestId`) its caller received, a job's 202's for an asynchronous call; the key of its receipts (`GET /api/receipts/{requestId}`)",
);
export const Sha256Hex = (what: string) => described(Schema.String, `SHA-256 of ${what}, lowercase hex`);
