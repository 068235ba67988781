import { Context, type Effect, type Option } from "effect";
import type { OutputFormat } from "../domain/template-catalog/template.ts";
import type { DependencyUnavailable } from "./errors.ts";

/** Where transformation results wait to be fetched through their signed URL. */
export interface StoredResult {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly expiresAt: Date;
}

/** A result in another format (negotiate-format.ts), kept beside it: `expiresAt` is the result's own. */
export type StoredVariant = StoredResult & { readonly resultId: string; readonly format: OutputFormat };

/**
 * Every adapter keeps these rules (test/contract/support/result-store-contract.ts checks them): what
 * is put comes back byte for byte (empty results too) with its content type and expiry, until the
 * expiry and not after; putting again under an id replaces; variants live and end with their
 * result; `deleteExpired` removes exactly the expired and counts them. An id that is not a safe
 * name (`../…`, a NUL, too short or long) reads as unknown, and putting under one is a defect of
 * the caller: the store dies rather than writes it. A store that cannot be reached is
 * DependencyUnavailable.
 */
export interface ResultStoreShape {
  readonly put: (result: StoredResult & { readonly resultId: string }) => Effect.Effect<void, DependencyUnavailable>;
  /** None when unknown or expired. */
  readonly get: (resultId: string, now: Date) => Effect.Effect<Option.Option<StoredResult>, DependencyUnavailable>;
  /** Keeps a variant until its result's expiry; putting the same variant again replaces it (instances may race to make one). */
  readonly putVariant: (variant: StoredVariant) => Effect.Effect<void, DependencyUnavailable>;
  /** None when no such variant was put, or it has expired. */
  readonly getVariant: (resultId: string, format: OutputFormat, now: Date) => Effect.Effect<Option.Option<StoredResult>, DependencyUnavailable>;
  /** Deletes every result and variant expired at `now`; returns how many (variants included). */
  readonly deleteExpired: (now: Date) => Effect.Effect<number, DependencyUnavailable>;
}

export class ResultStore extends Context.Service<ResultStore, ResultStoreShape>()("ResultStore") {}
