import { Context, Data, type Effect, type Option, type Stream } from "effect";
import type { JobStatus } from "../domain/job.ts";
import type { KeyRestrictions } from "../domain/key-restrictions.ts";
import type { Feature, PlanId } from "../domain/plan.ts";
import type { DependencyUnavailable } from "./errors.ts";
import type { RecordedEvent, UndecodableEvent } from "./event-store.ts";

/** What binding a projection to a store found (see ProjectionShape.bindToStore). */
export type StoreBinding =
  /** The rows were this store's already, or there were none. */
  | { readonly _tag: "Bound" }
  /** The rows came from another store (`previous`; null: one that was never recorded) and were emptied. */
  | { readonly _tag: "Reset"; readonly previous: string | null };

/**
 * Read models built from events, kept apart from the request path. Each remembers the global
 * position of the last event it applied (its checkpoint, stored with its rows), which makes
 * applying idempotent and lets it resume, and each can be rebuilt from the store alone.
 */
export interface ProjectionShape {
  readonly name: string;
  /** Names the storage it lives in: instances sharing the storage share one durable subscription. */
  readonly storageId: string;
  /** The global position of the last event applied; 0 when none. */
  readonly position: Effect.Effect<number, DependencyUnavailable>;
  /**
   * Applies events given in store order. Those at or below `position` are skipped, so a
   * redelivery changes nothing; events of other categories only move the position. Rows and
   * position move together or not at all.
   */
  readonly apply: (events: ReadonlyArray<RecordedEvent>) => Effect.Effect<void, DependencyUnavailable | UndecodableEvent>;
  /**
   * Empties the projection and refills it from `events` (the whole store, in order) as one
   * transaction: readers see the old rows until it commits. Returns the position reached.
   */
  readonly rebuild: (
    events: Stream.Stream<RecordedEvent, DependencyUnavailable | UndecodableEvent>,
  ) => Effect.Effect<number, DependencyUnavailable | UndecodableEvent>;
  /**
   * Records which store (its identity, see store-identity.ts) the rows come from. Rows and a
   * position that came from another store mean nothing in this one (its positions name other
   * events): they are emptied and the position set back to 0 in one transaction, so that
   * catching up from this store fills them again.
   */
  readonly bindToStore: (storeIdentity: string) => Effect.Effect<StoreBinding, DependencyUnavailable>;
}

/** Quota movements of one account, month (billing period), operation and key. */
export interface UsageRow {
  readonly accountId: string;
  readonly period: string;
  readonly operation: string;
  readonly keyId: string;
  readonly reserved: number;
  /** Transformations: reservations committed after a successful request. */
  readonly committed: number;
  /** Reservations given back because the request failed. */
  readonly released: number;
  /** Requests refused because the month's quota was used up. */
  readonly refused: number;
}

/** A consistent read: rows as of `position`. */
export interface Snapshot<A> {
  readonly position: number;
  readonly value: A;
}

/** One request's way through the quota ledger, as the account console lists it. */
export interface UsageRequest {
  readonly requestId: string;
  /** When its unit was reserved or refused. */
  readonly at: string;
  readonly operation: string;
  readonly keyId: string;
  /** pending: reserved, not yet finished; failed: released (nothing counted); refused: quota used up. */
  readonly outcome: "pending" | "succeeded" | "failed" | "refused";
}

/** What the account console shows of an account's usage. */
export interface UsageActivity {
  /** Transformations counted per UTC day (`YYYY-MM-DD`, the day of the commit) and operation, in the period asked for. */
  readonly daily: ReadonlyArray<{ readonly day: string; readonly operation: string; readonly committed: number }>;
  /** The newest first; the projection keeps an account's last RECENT_REQUESTS_KEPT. */
  readonly recent: ReadonlyArray<UsageRequest>;
  /** The last reservation or refusal per key. */
  readonly lastUsed: ReadonlyArray<{ readonly keyId: string; readonly at: string }>;
}

export const RECENT_REQUESTS_KEPT = 100;

export interface UsageProjectionShape extends ProjectionShape {
  readonly usageOf: (accountId: string) => Effect.Effect<Snapshot<ReadonlyArray<UsageRow>>, DependencyUnavailable>;
  readonly activityOf: (
    accountId: string,
    options: { readonly period: string; readonly recent: number },
  ) => Effect.Effect<Snapshot<UsageActivity>, DependencyUnavailable>;
}

export class UsageProjection extends Context.Service<UsageProjection, UsageProjectionShape>()("UsageProjection") {}

export interface ProjectedAccount {
  readonly accountId: string;
  readonly email: string;
  readonly name: string;
  readonly plan: PlanId;
  readonly openedAt: string;
}

export interface ProjectedKey {
  readonly keyId: string;
  readonly accountId: string;
  readonly name: string;
  readonly prefix: string;
  readonly secretHash: string;
  readonly createdAt: string;
  /** null while the key is active. */
  readonly revokedAt: string | null;
  readonly restrictions: KeyRestrictions;
  /** The latest request it was admitted for, noted at most once a minute per key; null if never. */
  readonly lastUsedAt: string | null;
}

/** The key directory authentication reads: accounts and their keys, revoked ones included. */
export interface KeyProjectionShape extends ProjectionShape {
  /** An active key and its account; none for an unknown or revoked key. */
  readonly findActiveKey: (
    keyId: string,
  ) => Effect.Effect<Option.Option<{ readonly key: ProjectedKey; readonly account: ProjectedAccount }>, DependencyUnavailable>;
  readonly keysOf: (
    accountId: string,
  ) => Effect.Effect<Snapshot<{ readonly account: Option.Option<ProjectedAccount>; readonly keys: ReadonlyArray<ProjectedKey> }>, DependencyUnavailable>;
  /**
   * Notes that a key was used at `at`: not an event (that would be one per request), and kept
   * apart from the event-derived rows, so a rebuild leaves it be.
   */
  readonly noteKeyUsed: (keyId: string, at: string) => Effect.Effect<void, DependencyUnavailable>;
  /** Accounts opened with this email, compared without regard to case (emails are not unique). */
  readonly accountsWithEmail: (email: string) => Effect.Effect<ReadonlyArray<ProjectedAccount>, DependencyUnavailable>;
}

export class KeyProjection extends Context.Service<KeyProjection, KeyProjectionShape>()("KeyProjection") {}

/** One asynchronous job (stream `job-<jobId>`) as lists and the job runner see it. */
export interface ProjectedJob {
  readonly jobId: string;
  readonly accountId: string;
  readonly operation: Feature;
  readonly status: JobStatus;
  /** When it was accepted; jobs are ordered by (createdAt, jobId). */
  readonly createdAt: string;
  /** When its latest attempt started; null while queued. */
  readonly startedAt: string | null;
  /** When it succeeded or failed; null until then. */
  readonly finishedAt: string | null;
  /** Attempts started so far (a lease that passed makes another). */
  readonly attempt: number;
  readonly progress: { readonly done: number; readonly total: number };
  /** The running attempt's lease; null unless running. */
  readonly leaseUntil: string | null;
  /** Why it failed; null unless failed. */
  readonly errorCode: string | null;
}

/** One page of an account's jobs, newest first; `next` (opaque) asks for the page after it, absent on the last. */
export interface JobPage {
  readonly jobs: ReadonlyArray<ProjectedJob>;
  readonly next: string | undefined;
}

/** A job the runner may claim: queued, or running under a lease that has passed. */
export interface RunnableJob {
  readonly jobId: string;
  readonly accountId: string;
}

/** A page cursor this projection did not make (or made for another order): the caller's request is malformed. */
export class InvalidJobCursor extends Data.TaggedError("InvalidJobCursor")<{ readonly cursor: string }> {}

/** The jobs read model: an account's jobs for `GET /api/jobs`, and the jobs the runner on every instance may run. */
export interface JobProjectionShape extends ProjectionShape {
  /**
   * At most `limit` (a positive integer) of the account's jobs, newest first by (createdAt, jobId),
   * those after the cursor `before` when given. A cursor that is not one `next` returned fails with
   * InvalidJobCursor.
   */
  readonly jobsOf: (
    accountId: string,
    options: { readonly limit: number; readonly before?: string | undefined },
  ) => Effect.Effect<Snapshot<JobPage>, DependencyUnavailable | InvalidJobCursor>;
  /** At most `limit` jobs that may be claimed at `now`: queued, or running with leaseUntil <= now; oldest first by (createdAt, jobId). */
  readonly runnable: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<RunnableJob>, DependencyUnavailable>;
  /** How many of the account's jobs are queued or running (the per-account cap counts them). */
  readonly queuedCount: (accountId: string) => Effect.Effect<number, DependencyUnavailable>;
}

export class JobProjection extends Context.Service<JobProjection, JobProjectionShape>()("JobProjection") {}
