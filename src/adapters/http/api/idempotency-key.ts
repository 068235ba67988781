import { Schema } from "effect";

/** docs/api-decisions.md: 1–255 printable (ASCII) characters; a repeat within 24 hours is the same request. */
export const IdempotencyKey = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255), Schema.isPattern(/^[\x20-\x7e]{1,255}$/u)).annotate({
  description:
    "Makes the POST safe to retry: within 24 hours, a repeat with the same key and body gets the first response again (same requestId and resultUrl) " +
    "and is charged once; the same key with another body gets 422 IDEMPOTENCY_KEY_REUSED; while the first is running, a repeat waits for it or gets " +
    "409 IDEMPOTENCY_KEY_IN_USE with Retry-After; if the first response is no longer available, 410 IDEMPOTENCY_RESPONSE_GONE (never a second run). " +
    "After 24 hours the key is free again: a repeat is a new request. Keys are scoped to the account.",
});
