import { Effect } from "effect";
import { ChainCrypto, type ChainCryptoShape } from "../../ports/chain-crypto.ts";
import { Clock } from "../../ports/clock.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { EventStore, type UndecodableEvent } from "../../ports/event-store.ts";
import { LEDGER_SEAL_STREAM } from "../event-sourcing/events/seal-events.ts";
import { type ChainDamage, judgeSuspects, type Walk, walkStore } from "./chain-walk.ts";
import type { StreamHead } from "./merkle.ts";
import { missingSeal } from "./seal-freshness.ts";
import { type ExportedSeal, exportedSeal, exportedSealProblem, readSeals, type SealFold } from "./sealed-heads.ts";

/**
 * The whole store walked once in global order, every event's chain link checked (ledger/event-chain.ts),
 * then every stream held against the latest seal's heads. Damage is named by stream, revision (as
 * replay reads the stream) and kind; only a stream's first damage is reported, as all after it follows.
 * A stream the seal names and the store no longer holds is `gone`; seals missing by their schedule
 * (seal-freshness.ts) are `seal missing` on the seal stream.
 */
export interface ChainVerification {
  readonly events: number;
  readonly streams: number;
  /** Events written before chaining began (no link), all before `chainedFrom`. */
  readonly unchained: { readonly events: number; readonly chainedFrom: number | null };
  /** The seal the heads were checked against, or null when the store holds none (a cut tail cannot be seen then). */
  readonly seal: {
    readonly revision: number;
    readonly sealedAt: string;
    readonly streams: number;
    readonly root: string;
    /** The sealing interval the seal recorded; null for seals written before it was recorded. */
    readonly intervalSeconds: number | null;
    readonly source: "store" | "export";
  } | null;
  readonly damage: ReadonlyArray<ChainDamage>;
  readonly ok: boolean;
}

export interface VerifyOptions {
  /** An exported seal to hold the store to, instead of the latest seal in the store. */
  readonly seal?: ExportedSeal;
  /** LEDGER_SEAL_INTERVAL_SECONDS where the audit runs: for seals that recorded none, and for a store without seals. */
  readonly intervalSeconds: number;
}

/** The heads the store is held to, the seal they come from, and the damage found in that seal itself. */
interface SealCheck {
  readonly sealHeads: ReadonlyMap<string, StreamHead>;
  readonly seal: ChainVerification["seal"];
  readonly damage: Array<ChainDamage>;
}

/** An exported seal: it must check out, be signed by this deployment's key, and be in the store. */
const exportedSealCheck = (crypto: ChainCryptoShape, fromStore: SealFold, exported: ExportedSeal): SealCheck => {
  const damage: Array<ChainDamage> = [];
  const problem = exportedSealProblem(crypto, exported);
  if (problem !== undefined)
    damage.push({ streamName: LEDGER_SEAL_STREAM, revision: exported.sealRevision, kind: "edited", detail: `the exported seal fails: ${problem}` });
  else if (exported.publicKey !== crypto.publicKey) {
    damage.push({
      streamName: LEDGER_SEAL_STREAM,
      revision: exported.sealRevision,
      kind: "edited",
      detail: "the exported seal was signed by another key than this deployment's",
    });
  }
  const inStore = fromStore.latest !== undefined && fromStore.latest.revision >= exported.sealRevision;
  if (!inStore) {
    damage.push({
      streamName: LEDGER_SEAL_STREAM,
      revision: fromStore.next,
      kind: "tail cut",
      detail: `the exported seal is revision ${exported.sealRevision}; the store holds ${fromStore.latest === undefined ? "no seal" : `seals up to revision ${fromStore.latest.revision}`}`,
    });
  }
  const sealHeads = new Map(exported.heads.map((head) => [head.stream, head]));
  const { sealRevision: revision, sealedAt, streams, root, intervalSeconds } = exported;
  return { sealHeads, seal: { revision, sealedAt, streams, root, intervalSeconds: intervalSeconds ?? null, source: "export" }, damage };
};

/** The latest seal in the store, if any: it must check out. */
const storedSealCheck = (crypto: ChainCryptoShape, fromStore: SealFold): SealCheck => {
  const damage: Array<ChainDamage> = [];
  if (fromStore.latest === undefined) return { sealHeads: fromStore.heads, seal: null, damage };
  const latest = fromStore.latest;
  const seal: ChainVerification["seal"] = {
    revision: latest.revision,
    sealedAt: latest.sealedAt,
    streams: latest.streams,
    root: latest.root,
    intervalSeconds: latest.intervalSeconds,
    source: "store",
  };
  const problem = exportedSealProblem(crypto, exportedSeal(latest, fromStore.heads));
  if (problem !== undefined)
    damage.push({ streamName: LEDGER_SEAL_STREAM, revision: latest.revision, kind: "edited", detail: `the latest seal fails: ${problem}` });
  return { sealHeads: fromStore.heads, seal, damage };
};

/** Every stream the seal names, held to its sealed head: there, as long, and with the same mac. */
const checkSealedHeads = ({ checks, observedAtSeal }: Walk, sealHeads: ReadonlyMap<string, StreamHead>, damage: Array<ChainDamage>): void => {
  for (const [streamName, head] of sealHeads) {
    const check = checks.get(streamName);
    if (check?.damage !== undefined) continue;
    const last = check?.last ?? -1;
    if (last === -1) {
      damage.push({ streamName, revision: 0, kind: "gone", detail: `sealed at revision ${head.revision}, the store holds no event of it` });
    } else if (last < head.revision) {
      damage.push({ streamName, revision: last + 1, kind: "tail cut", detail: `sealed at revision ${head.revision}, the stream ends at ${last}` });
    } else if (observedAtSeal.get(streamName) !== head.mac) {
      damage.push({ streamName, revision: head.revision, kind: "edited", detail: "the sealed head's mac differs" });
    }
  }
};

export const verifyChains = (
  options: VerifyOptions,
): Effect.Effect<ChainVerification, DependencyUnavailable | UndecodableEvent, EventStore | ChainCrypto | Clock> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const crypto = yield* ChainCrypto;
    const now = (yield* Clock).now();

    // The seal first: its heads are watched for during the walk.
    const fromStore = yield* readSeals();
    const { sealHeads, seal, damage } = options.seal !== undefined ? exportedSealCheck(crypto, fromStore, options.seal) : storedSealCheck(crypto, fromStore);
    const walk = yield* walkStore(store, crypto, sealHeads, damage);
    judgeSuspects(walk, damage);
    checkSealedHeads(walk, sealHeads, damage);
    const missing = missingSeal({
      now,
      newest: fromStore.latest,
      nextRevision: fromStore.next,
      configuredIntervalSeconds: options.intervalSeconds,
      oldestEventAt: walk.oldest === Number.POSITIVE_INFINITY ? undefined : new Date(walk.oldest),
    });
    if (missing !== undefined) damage.push({ streamName: LEDGER_SEAL_STREAM, ...missing, kind: "seal missing" });
    damage.sort((a, b) => (a.streamName < b.streamName ? -1 : a.streamName > b.streamName ? 1 : a.revision - b.revision));
    return {
      events: walk.events,
      streams: walk.checks.size,
      unchained: { events: walk.unchainedEvents, chainedFrom: walk.chainedFrom },
      seal,
      damage,
      ok: damage.length === 0,
    } satisfies ChainVerification;
  });
