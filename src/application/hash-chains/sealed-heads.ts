import { Effect, Result } from "effect";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { EventStore, type RecordedEvent, type UndecodableEvent } from "../../ports/event-store.ts";
import { LEDGER_SEAL_STREAM, type LedgerSealed, sealEventCodec, sealStatement } from "../event-sourcing/events/seal-events.ts";
import { merkleRoot, type StreamHead } from "./merkle.ts";

/** The seal stream read back: every seal's heads folded in order, the latest seal, and seals as exported. */

/** A seal as exported: everything an auditor needs to hold the store to it, checkable with the public key alone. */
export interface ExportedSeal {
  /** v2 records the sealing interval, under the signature; v1 (seals written before) does not. */
  readonly format: "its-ledger-seal/v1" | "its-ledger-seal/v2";
  readonly sealRevision: number;
  readonly sealedAt: string;
  readonly streams: number;
  readonly root: string;
  readonly intervalSeconds?: number;
  readonly publicKey: string;
  readonly signature: string;
  readonly heads: ReadonlyArray<StreamHead>;
}

export type LatestSeal = LedgerSealed & { readonly revision: number };

export interface SealFold {
  /** Every head under the latest seal's root. */
  readonly heads: Map<string, StreamHead>;
  latest: LatestSeal | undefined;
  /** Pieces read since the last `LedgerSealed`: those of a seal still being written, or of one that never finished. */
  pending: Array<{ readonly sealedAt: string; readonly heads: ReadonlyArray<StreamHead> }>;
  /** The seal stream's next revision: where reading goes on. */
  next: number;
}

export const emptySealFold = (): SealFold => ({ heads: new Map(), latest: undefined, pending: [], next: 0 });

/** Folds seal-stream events, in order, into `fold`. */
export const foldSeals = (fold: SealFold, seals: ReadonlyArray<RecordedEvent>): Result.Result<SealFold, UndecodableEvent> => {
  for (const recorded of seals) {
    const decoded = sealEventCodec.decodeResult(recorded);
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure);
    const event = decoded.success;
    fold.next = recorded.streamRevision + 1;
    if (event.type === "LedgerSealHeads") {
      fold.pending.push(event.data);
      continue;
    }
    // A seal's pieces are the ones right before it; any piece of a wrong seal there changes the fold, and the root check names it.
    const pieces = event.data.pieces === 0 ? [] : fold.pending.slice(-event.data.pieces);
    for (const piece of pieces) if (piece.sealedAt === event.data.sealedAt) for (const head of piece.heads) fold.heads.set(head.stream, head);
    for (const head of event.data.heads) fold.heads.set(head.stream, head);
    fold.pending = [];
    fold.latest = { ...event.data, revision: recorded.streamRevision };
  }
  return Result.succeed(fold);
};

/** Reads the seal stream from where `fold` stopped (the whole stream for a new fold). */
export const readSeals = (fold?: SealFold): Effect.Effect<SealFold, DependencyUnavailable | UndecodableEvent, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const into = fold ?? emptySealFold();
    return yield* Effect.fromResult(foldSeals(into, yield* store.readStream(LEDGER_SEAL_STREAM, { fromRevision: into.next })));
  });

const byStream = (a: StreamHead, b: StreamHead) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0);

/** A seal with every head under it, as an auditor keeps it. */
export const exportedSeal = (seal: LatestSeal, heads: ReadonlyMap<string, StreamHead>): ExportedSeal => ({
  format: seal.intervalSeconds === null ? "its-ledger-seal/v1" : "its-ledger-seal/v2",
  sealRevision: seal.revision,
  sealedAt: seal.sealedAt,
  streams: seal.streams,
  root: seal.root,
  ...(seal.intervalSeconds === null ? {} : { intervalSeconds: seal.intervalSeconds }),
  publicKey: seal.publicKey,
  signature: seal.signature,
  heads: [...heads.values()].sort(byStream),
});

/** Checks an exported seal by itself: its heads give its root, and its signature holds under its key. */
export const exportedSealProblem = (
  crypto: { readonly digest: (text: string) => string; readonly verify: (text: string, signature: string, key: string) => boolean },
  seal: ExportedSeal,
): string | undefined => {
  if (merkleRoot(crypto.digest, seal.heads) !== seal.root) return "its heads do not give its root";
  if (seal.heads.length !== seal.streams) return `it lists ${seal.heads.length} heads but claims ${seal.streams}`;
  if (!crypto.verify(sealStatement({ ...seal, intervalSeconds: seal.intervalSeconds ?? null }), seal.signature, seal.publicKey)) {
    return "its signature does not verify";
  }
  return undefined;
};

/** The latest seal in the store, with every head under it. */
export const exportLatestSeal = readSeals().pipe(Effect.map((fold) => (fold.latest === undefined ? undefined : exportedSeal(fold.latest, fold.heads))));
