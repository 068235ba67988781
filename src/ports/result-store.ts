import { Context, type Effect, type Option } from "effect";
import type { DependencyUnavailable } from "./errors.ts";

/** Where transformation results wait to be fetched through their signed URL. */
export interface StoredResult {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly expiresAt: Date;
}

export interface ResultStoreShape {
  readonly put: (result: StoredResult & { readonly resultId: string }) => Effect.Effect<void, DependencyUnavailable>;
  /** None when unknown or expired. */
  readonly get: (resultId: string, now: Date) => Effect.Effect<Option.Option<StoredResult>, DependencyUnavailable>;
  /** Deletes every result expired at `now`; returns how many. */
  readonly deleteExpired: (now: Date) => Effect.Effect<number, DependencyUnavailable>;
}

export class ResultStore extends Context.Service<ResultStore, ResultStoreShape>()("ResultStore") {}
