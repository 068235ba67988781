import { Data } from "effect";

/**
 * Failures the HTTP adapter finds itself, before or around a use case. Each has its entry in the
 * error catalog (errors/error-catalog.ts), like the use cases' and ports' errors.
 */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{ readonly message: string }> {}

/** The request body is over MAX_BODY_BYTES. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limitBytes: number }> {}

export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{
  readonly method: string;
  readonly path: string;
  readonly allow: ReadonlyArray<string>;
}> {}

/** A result URL whose signature does not match what this service signed. */
export class InvalidSignature extends Data.TaggedError("InvalidSignature")<Record<never, never>> {}

/** A request that reached this instance while it stops: another instance can take it. */
export class ShuttingDown extends Data.TaggedError("ShuttingDown")<Record<never, never>> {}

/** A non-GET request that came over plain HTTP (directly, or to a TLS-terminating proxy). */
export class HttpsRequired extends Data.TaggedError("HttpsRequired")<Record<never, never>> {}
