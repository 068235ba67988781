import { Effect } from "effect";
import { Clock } from "../../ports/clock.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { ConcurrencyConflict, EventStore, type UndecodableEvent } from "../../ports/event-store.ts";
import { LedgerCrypto } from "../../ports/ledger-crypto.ts";
import { type Actor, ACTOR_METADATA_KEY } from "../actor.ts";
import { LEDGER_SEAL_STREAM, ledgerEventCodec, sealStatement } from "../events/ledger-events.ts";
import { chainLinkOf, GENESIS } from "./event-chain.ts";
import { merkleRoot, type StreamHead } from "./merkle.ts";
import { type ExportedSeal, sealedHeads } from "./verify-ledger.ts";

export interface SealOutcome {
  /** False when nothing changed since the latest seal, which then stands. */
  readonly sealed: boolean;
  readonly seal: ExportedSeal | undefined;
}

const PAGE = 1_000;

/**
 * Seals the store: every stream's head (last revision and its chain mac) under one Merkle root,
 * signed, and appended to the seal stream, so that a stream cut short later is found by the
 * audit. A sealer remembers the heads it has read and where it stopped, so a long-lived one
 * (the server's periodic seal) reads only what was appended since; a new one reads the store once.
 */
export const makeLedgerSealer = () => {
  const heads = new Map<string, StreamHead>();
  let after = 0;

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
      const crypto = yield* LedgerCrypto;
      const seals = yield* store.readStream(LEDGER_SEAL_STREAM);
      const sealed = yield* sealedHeads(seals);
      yield* readHeads;
      const changed = [...heads.values()].filter((head) => {
        const previous = sealed.heads.get(head.stream);
        // Only a head that moved on is sealed anew: a stream found shorter or changed since keeps its sealed head, for the audit to find.
        return previous === undefined || head.revision > previous.revision;
      });
      const revision = seals.at(-1)?.streamRevision;
      if (sealed.latest !== undefined && revision !== undefined && changed.length === 0) {
        return { sealed: false, seal: exported(sealed.latest, revision, sealed.heads) } satisfies SealOutcome;
      }
      // Heads sealed before and absent now stay under the root: the audit is to find them cut.
      const all = new Map(sealed.heads);
      for (const head of changed) all.set(head.stream, head);
      const sealedAt = (yield* Clock).now().toISOString();
      const root = merkleRoot(crypto.digest, all.values());
      const data = {
        sealedAt,
        streams: all.size,
        root,
        heads: changed,
        publicKey: crypto.publicKey,
        signature: crypto.sign(sealStatement({ sealedAt, streams: all.size, root })),
      };
      const appended = yield* store.appendToStream(
        LEDGER_SEAL_STREAM,
        [ledgerEventCodec.encode({ type: "LedgerSealed", data }, { [ACTOR_METADATA_KEY]: actor })],
        { expectedRevision: revision ?? -1 },
      );
      return { sealed: true, seal: exported(data, appended.nextExpectedRevision, all) } satisfies SealOutcome;
    });

  return {
    /** Seals now; should another sealer append first, seals again on top of its seal. */
    seal: (actor: Actor): Effect.Effect<SealOutcome, DependencyUnavailable | UndecodableEvent | ConcurrencyConflict, EventStore | LedgerCrypto | Clock> =>
      attempt(actor).pipe(Effect.retry({ while: (error) => error instanceof ConcurrencyConflict, times: 5 })),
  };
};

const exported = (
  seal: { readonly sealedAt: string; readonly streams: number; readonly root: string; readonly publicKey: string; readonly signature: string },
  revision: number,
  heads: ReadonlyMap<string, StreamHead>,
): ExportedSeal => ({
  format: "its-ledger-seal/v1",
  sealRevision: revision,
  sealedAt: seal.sealedAt,
  streams: seal.streams,
  root: seal.root,
  publicKey: seal.publicKey,
  signature: seal.signature,
  heads: [...heads.values()].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0)),
});

/** The latest seal in the store, with every head under it, as an auditor keeps it. */
export const exportLatestSeal = Effect.gen(function* () {
  const store = yield* EventStore;
  const seals = yield* store.readStream(LEDGER_SEAL_STREAM);
  const { heads, latest } = yield* sealedHeads(seals);
  return latest === undefined ? undefined : exported(latest, latest.revision, heads);
});
