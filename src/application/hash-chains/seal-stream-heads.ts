import { Effect } from "effect";
import { ChainCrypto } from "../../ports/chain-crypto.ts";
import { Clock } from "../../ports/clock.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { ConcurrencyConflict, EventStore, NO_STREAM, type UndecodableEvent } from "../../ports/event-store.ts";
import { type Actor, ACTOR_METADATA_KEY } from "../access/actor.ts";
import { LEDGER_SEAL_STREAM, type SealEvent, sealEventCodec, sealStatement } from "../event-sourcing/events/seal-events.ts";
import { chainLinkOf, GENESIS } from "./event-chain.ts";
import { merkleRoot, type StreamHead } from "./merkle.ts";
import { emptySealFold, type ExportedSeal, exportedSeal, readSeals } from "./sealed-heads.ts";

export interface SealOutcome {
  readonly seal: ExportedSeal;
  /** Heads that moved since the previous seal, and the events they were recorded in. */
  readonly changed: number;
  readonly events: number;
}

const PAGE = 1_000;

/**
 * The JSON size of the heads one seal event holds, at most (a head larger than this alone gets an
 * event to itself): every seal event stays a few tens of KiB, however many streams changed, far
 * below a message bus's limit (NATS: 1 MiB).
 */
export const SEAL_PIECE_BYTES = 32 * 1024;

const inPieces = (heads: ReadonlyArray<StreamHead>): Array<Array<StreamHead>> => {
  const pieces: Array<Array<StreamHead>> = [[]];
  let size = 0;
  for (const head of heads) {
    const bytes = Buffer.byteLength(JSON.stringify(head)) + 1;
    if (size + bytes > SEAL_PIECE_BYTES && pieces.at(-1)!.length > 0) {
      pieces.push([]);
      size = 0;
    }
    pieces.at(-1)!.push(head);
    size += bytes;
  }
  return pieces;
};

/**
 * Seals the store: every stream's head (last revision and its chain mac) under one Merkle root,
 * signed with the sealing interval, and appended to the seal stream, so that a stream cut short
 * later is found by the audit. A seal is appended even when nothing changed: the audit takes a
 * newest seal older than its interval to mean a newer one was deleted. The changed heads go in
 * pieces of at most SEAL_PIECE_BYTES, each appended on its own (so no append outgrows a store's
 * limit either), the `LedgerSealed` last. A sealer remembers the heads and seals it has read, so
 * a long-lived one (the server's periodic seal) reads only what was appended since.
 */
export const makeStreamSealer = (options: { readonly intervalSeconds: number }) => {
  const heads = new Map<string, StreamHead>();
  let after = 0;
  let seals = emptySealFold();

  const readHeads = Effect.gen(function* () {
    const store = yield* EventStore;
    for (;;) {
      const page = yield* store.readAll({ after, limit: PAGE });
      if (page.length === 0) return;
      for (const event of page) {
        if (event.streamName === LEDGER_SEAL_STREAM) continue;
        heads.set(event.streamName, { stream: event.streamName, revision: event.streamRevision, mac: chainLinkOf(event.metadata)?.mac ?? GENESIS });
      }
      after = page.at(-1)!.globalPosition;
    }
  });

  const attempt = (actor: Actor) =>
    Effect.gen(function* () {
      const store = yield* EventStore;
      const crypto = yield* ChainCrypto;
      const sealed = yield* readSeals(seals);
      yield* readHeads;
      const changed = [...heads.values()].filter((head) => {
        const previous = sealed.heads.get(head.stream);
        // Only a head that moved on is sealed anew: a stream found shorter or changed since keeps its sealed head, for the audit to find.
        return previous === undefined || head.revision > previous.revision;
      });
      // Heads sealed before and absent now stay under the root: the audit is to find them cut.
      const all = new Map(sealed.heads);
      for (const head of changed) all.set(head.stream, head);
      const sealedAt = (yield* Clock).now().toISOString();
      const root = merkleRoot(crypto.digest, all.values());
      const statement = { sealedAt, streams: all.size, root, intervalSeconds: options.intervalSeconds };
      const pieces = inPieces(changed);
      const inline = pieces.pop()!;
      const final = { ...statement, heads: inline, pieces: pieces.length, publicKey: crypto.publicKey, signature: crypto.sign(sealStatement(statement)) };
      const events: Array<SealEvent> = [
        ...pieces.map((piece, index): SealEvent => ({ type: "LedgerSealHeads", data: { sealedAt, piece: index, heads: piece } })),
        { type: "LedgerSealed", data: final },
      ];
      let revision = sealed.next - 1;
      for (const event of events) {
        const appended = yield* store.appendToStream(LEDGER_SEAL_STREAM, [sealEventCodec.encode(event, { [ACTOR_METADATA_KEY]: actor })], {
          expectedRevision: revision === -1 ? NO_STREAM : revision,
        });
        revision = appended.nextExpectedRevision;
      }
      return { seal: exportedSeal({ ...final, revision }, all), changed: changed.length, events: events.length } satisfies SealOutcome;
    }).pipe(
      // The seal stream moved under this sealer (another sealer, a restored store): read it afresh.
      Effect.tapError((error) => Effect.sync(() => (error instanceof ConcurrencyConflict ? (seals = emptySealFold()) : undefined))),
    );

  return {
    /** Seals now; should another sealer append first, seals again on top of its seal. */
    seal: (actor: Actor): Effect.Effect<SealOutcome, DependencyUnavailable | UndecodableEvent | ConcurrencyConflict, EventStore | ChainCrypto | Clock> =>
      attempt(actor).pipe(Effect.retry({ while: (error) => error instanceof ConcurrencyConflict, times: 5 })),
    /** Milliseconds until the newest seal is one interval old: 0 when it already is, a whole interval when the store holds none. */
    untilDue: Effect.gen(function* () {
      const newest = (yield* readSeals(seals)).latest;
      const now = (yield* Clock).now().getTime();
      const interval = options.intervalSeconds * 1000;
      return newest === undefined ? interval : Math.max(0, Date.parse(newest.sealedAt) + interval - now);
    }),
  };
};
