import { Context, type Effect } from "effect";
import type { ReceiptBody } from "../domain/receipt.ts";
import type { DependencyUnavailable } from "./errors.ts";
import type { ProjectionShape } from "./projections.ts";

/**
 * The receipts log: every quota movement as a leaf of an RFC 6962 Merkle tree, in the store's
 * order, derived from the event store alone (a projection: rebuilt from it, never written by a
 * request). Hashes are the raw 32 bytes.
 */
export interface ReceiptLogShape extends ProjectionShape {
  /** The log's origin line, in every receipt and checkpoint. */
  readonly origin: string;
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
}

export class ReceiptLog extends Context.Service<ReceiptLog, ReceiptLogShape>()("ReceiptLog") {}
