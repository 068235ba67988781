import { Context, type Effect, type Stream } from "effect";
import type { ReceiptBody } from "../domain/receipts/receipt.ts";
import type { DependencyUnavailable } from "./errors.ts";
import type { RecordedEvent, UndecodableEvent } from "./event-store.ts";
import type { ProjectionShape } from "./projections.ts";

/** The stored log held against the one the store's events make now. */
export interface LogComparison {
  /** Leaves the stored log holds. */
  readonly stored: number;
  /** Leaves the store's events make. */
  readonly derived: number;
  /** The first leaf that differs (or that one side lacks); none when the stored log is the store's. */
  readonly firstDifference: number | undefined;
}

/**
 * The receipts log: every quota movement as a leaf of an RFC 6962 Merkle tree, in the store's
 * order, derived from the event store alone (a projection: rebuilt from it, never written by a
 * request). Hashes are the raw 32 bytes.
 */
export interface ReceiptLogShape extends ProjectionShape {
  /** The log's origin line, in every receipt and checkpoint. */
  readonly origin: string;
  /**
   * False while the log is withheld: found at start to differ from the store (an edited store),
   * nothing of it is published. The profile says so, where a customer looks.
   */
  readonly published: Effect.Effect<boolean>;
  /** Leaves in the log now. */
  readonly size: Effect.Effect<number, DependencyUnavailable>;
  /** The movements of one request, oldest first (a charge or a release, later perhaps a refund). */
  readonly receiptsOf: (requestId: string) => Effect.Effect<ReadonlyArray<ReceiptBody>, DependencyUnavailable>;
  /** An account's movements in a billing period, in log order. */
  readonly statementOf: (account: string, period: string) => Effect.Effect<ReadonlyArray<ReceiptBody>, DependencyUnavailable>;
  /** The root of the log's first `size` leaves. */
  readonly root: (size: number) => Effect.Effect<Uint8Array, DependencyUnavailable>;
  readonly inclusionProof: (leafIndex: number, size: number) => Effect.Effect<ReadonlyArray<Uint8Array>, DependencyUnavailable>;
  readonly consistencyProof: (from: number, to: number) => Effect.Effect<ReadonlyArray<Uint8Array>, DependencyUnavailable>;
  /**
   * Derives the log afresh from `events` (the whole store, in order) up to position `upTo`, holds
   * it against the stored leaves of those events, and says where they first differ: an edited
   * store, or a log kept from another. A difference withholds the log (its reads fail) until it is
   * rebuilt.
   */
  readonly compareWith: (
    events: Stream.Stream<RecordedEvent, DependencyUnavailable | UndecodableEvent>,
    upTo: number,
  ) => Effect.Effect<LogComparison, DependencyUnavailable | UndecodableEvent>;
}

export class ReceiptLog extends Context.Service<ReceiptLog, ReceiptLogShape>()("ReceiptLog") {}
