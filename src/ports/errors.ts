import { Data } from "effect";

/** Failures that adapters report through the ports, each with a meaning the API can state. */
export class InvalidImage extends Data.TaggedError("InvalidImage")<{ readonly message: string }> {}

export class ImageTooLarge extends Data.TaggedError("ImageTooLarge")<{ readonly message: string }> {}

/** The engine's queue is full: the client should retry later. */
export class EngineBusy extends Data.TaggedError("EngineBusy")<{ readonly retryAfterSeconds: number }> {}

/** The engine ran past its deadline. */
export class EngineTimeout extends Data.TaggedError("EngineTimeout")<{ readonly deadlineMs: number }> {}

/** A dependency (store, bus, engine process) cannot be reached. `cause` is for logs only. */
export class DependencyUnavailable extends Data.TaggedError("DependencyUnavailable")<{
  readonly dependency: string;
  readonly cause?: unknown;
}> {
  /** So that logs and a failed start name what is missing. */
  override get message(): string {
    return `${this.dependency} is unavailable`;
  }
}
