import { Context, type Effect, type Option, type Stream } from "effect";
import type { PlanId } from "../domain/plan.ts";
import type { DependencyUnavailable } from "./errors.ts";
import type { RecordedEvent } from "./event-store.ts";

/**
 * Read models built from events, kept apart from the request path. Each remembers the global
 * position of the last event it applied (its checkpoint, stored with its rows), which makes
 * applying idempotent and lets it resume, and each can be rebuilt from the store alone.
 */
export interface ProjectionShape {
  readonly name: string;
  /** The event category it reads (see eventCategory). */
  readonly category: string;
  /** Names the storage it lives in: instances sharing the storage share one durable subscription. */
  readonly storageId: string;
  /** The global position of the last event applied; 0 when none. */
  readonly position: Effect.Effect<number, DependencyUnavailable>;
  /**
   * Applies events given in store order. Those at or below `position` are skipped, so a
   * redelivery changes nothing; events of other categories only move the position. Rows and
   * position move together or not at all.
   */
  readonly apply: (events: ReadonlyArray<RecordedEvent>) => Effect.Effect<void, DependencyUnavailable>;
  /**
   * Empties the projection and refills it from `events` (the whole store, in order) as one
   * transaction: readers see the old rows until it commits. Returns the position reached.
   */
  readonly rebuild: (events: Stream.Stream<RecordedEvent, DependencyUnavailable>) => Effect.Effect<number, DependencyUnavailable>;
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

export interface UsageProjectionShape extends ProjectionShape {
  readonly usageOf: (accountId: string) => Effect.Effect<Snapshot<ReadonlyArray<UsageRow>>, DependencyUnavailable>;
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
}

/** The key directory authentication reads: accounts and their keys, revoked ones included. */
export interface KeyProjectionShape extends ProjectionShape {
  /** An active key and its account; none for an unknown or revoked key. */
  readonly findActiveKey: (
    keyId: string,
  ) => Effect.Effect<Option.Option<{ readonly key: ProjectedKey; readonly account: ProjectedAccount }>, DependencyUnavailable>;
  readonly keysOf: (
    accountId: string,
  ) => Effect.Effect<
    Snapshot<{ readonly account: Option.Option<ProjectedAccount>; readonly keys: ReadonlyArray<ProjectedKey> }>,
    DependencyUnavailable
  >;
}

export class KeyProjection extends Context.Service<KeyProjection, KeyProjectionShape>()("KeyProjection") {}
