import { Data } from "effect";

/** Failures a use case reports to its caller; each maps to one error code of the API. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly message: string }> {}

export class RateLimited extends Data.TaggedError("RateLimited")<{ readonly retryAfterSeconds: number }> {}

export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly message: string;
  readonly details: ReadonlyArray<FieldIssue>;
}> {}

export class InsufficientPermissions extends Data.TaggedError("InsufficientPermissions")<{ readonly message: string }> {}

export class QuotaExceeded extends Data.TaggedError("QuotaExceeded")<{
  readonly limit: number;
  readonly period: string;
  readonly retryAfterSeconds: number;
}> {}

/** The key's allowlist does not hold the client's address (issue 42). */
export class IpNotAllowed extends Data.TaggedError("IpNotAllowed")<{ readonly address: string }> {}

/** The key's own monthly limit is spent; the account's quota was not touched. */
export class KeyQuotaExceeded extends Data.TaggedError("KeyQuotaExceeded")<{
  readonly limit: number;
  readonly period: string;
  readonly retryAfterSeconds: number;
}> {}

export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

/** A domain rule refused a command (e.g. unknown account, key limit reached). */
export class CommandRejected extends Data.TaggedError("CommandRejected")<{
  readonly code: string;
  readonly message: string;
}> {}

/** An Idempotency-Key already used by this account for a different request (method, path or body). */
export class IdempotencyKeyReused extends Data.TaggedError("IdempotencyKeyReused")<{ readonly message: string }> {}

/** The first request with this Idempotency-Key is still running and did not finish while the retry waited. */
export class IdempotencyKeyInUse extends Data.TaggedError("IdempotencyKeyInUse")<{ readonly retryAfterSeconds: number }> {}

/** The first request with this Idempotency-Key completed, but its kept response is gone (lost or altered) before the key expired. */
export class IdempotentResponseGone extends Data.TaggedError("IdempotentResponseGone")<Record<never, never>> {}

/** The plan's number of templates of the account's own is reached (PLANS[plan].accountTemplates). */
export class TemplateLimitReached extends Data.TaggedError("TemplateLimitReached")<{ readonly plan: string; readonly limit: number }> {}

/** The account has as many jobs queued or running as it may (ServiceSettings.maxQueuedJobs): a new one waits for one to end. */
export class JobQueueFull extends Data.TaggedError("JobQueueFull")<{ readonly limit: number }> {}
