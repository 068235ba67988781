import { Effect, Result } from "effect";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { EventStore, type EventStoreShape, type RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";
import { LedgerCrypto } from "../../ports/ledger-crypto.ts";
import { LEDGER_SEAL_STREAM, ledgerEventCodec, sealStatement } from "../events/ledger-events.ts";
import { type ChainLink, chainLinkOf, GENESIS, linkIsGenuine } from "./event-chain.ts";
import { merkleRoot, type StreamHead } from "./merkle.ts";

/**
 * The whole store walked once in global order, every event's chain link checked (ledger/event-chain.ts),
 * then every stream held against the latest seal's heads. Damage is named by stream, revision (as
 * replay reads the stream) and kind; only a stream's first damage is reported, as all after it follows.
 */
export type DamageKind = "edited" | "deleted" | "inserted" | "re-ordered" | "tail cut";

export interface ChainDamage {
  readonly streamName: string;
  readonly revision: number;
  readonly kind: DamageKind;
  readonly detail: string;
}

/** A seal as exported: everything an auditor needs to hold the store to it, checkable with the public key alone. */
export interface ExportedSeal {
  readonly format: "its-ledger-seal/v1";
  readonly sealRevision: number;
  readonly sealedAt: string;
  readonly streams: number;
  readonly root: string;
  readonly publicKey: string;
  readonly signature: string;
  readonly heads: ReadonlyArray<StreamHead>;
}

export interface LedgerVerification {
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
    readonly source: "store" | "export";
  } | null;
  readonly damage: ReadonlyArray<ChainDamage>;
  readonly ok: boolean;
}

interface Entry {
  readonly revision: number;
  readonly position: number;
  readonly link: ChainLink | undefined;
  readonly genuine: boolean;
}

interface StreamCheck {
  /** The revision the next event must have. */
  next: number;
  lastMac: string;
  last: number;
  /** From the first anomaly on, the stream's entries are kept and judged at the end, when all of them are known. */
  suspect: Array<Entry> | undefined;
  damage: ChainDamage | undefined;
}

const PAGE = 1_000;

/** The seal's heads, folded from every seal in order, and the latest seal itself. */
export const sealedHeads = (seals: ReadonlyArray<RecordedEvent>) =>
  Effect.gen(function* () {
    const heads = new Map<string, StreamHead>();
    let latest: (ReturnType<typeof ledgerEventCodec.decode>["data"] & { readonly revision: number }) | undefined;
    for (const recorded of seals) {
      const decoded = ledgerEventCodec.decodeResult(recorded);
      if (Result.isFailure(decoded)) return yield* Effect.fail(decoded.failure);
      for (const head of decoded.success.data.heads) heads.set(head.stream, head);
      latest = { ...decoded.success.data, revision: recorded.streamRevision };
    }
    return { heads, latest };
  });

/** Checks an exported seal by itself: its heads give its root, and its signature holds under its key. */
export const exportedSealProblem = (
  crypto: { readonly digest: (text: string) => string; readonly verify: (text: string, signature: string, key: string) => boolean },
  seal: ExportedSeal,
): string | undefined => {
  if (merkleRoot(crypto.digest, seal.heads) !== seal.root) return "its heads do not give its root";
  if (seal.heads.length !== seal.streams) return `it lists ${seal.heads.length} heads but claims ${seal.streams}`;
  if (!crypto.verify(sealStatement(seal), seal.signature, seal.publicKey)) return "its signature does not verify";
  return undefined;
};

/** Judges a suspect stream's entries in revision order, from where its chain was last intact. */
const judge = (streamName: string, check: StreamCheck, entries: ReadonlyArray<Entry>, chainedFrom: number | null): ChainDamage | undefined => {
  const sorted = [...entries].sort((a, b) => a.revision - b.revision);
  const writtenAt = (revision: number) => sorted.some((entry) => entry.genuine && entry.link?.revision === revision);
  const damage = (revision: number, kind: DamageKind, detail: string): ChainDamage => ({ streamName, revision, kind, detail });
  let expected = check.next;
  let lastMac = check.lastMac;
  for (const entry of sorted) {
    if (entry.revision > expected) {
      return writtenAt(expected)
        ? damage(expected, "re-ordered", `the event written as revision ${expected} now sits at a later revision`)
        : damage(expected, "deleted", `revision ${expected} is missing; the next event is at ${entry.revision}`);
    }
    if (entry.link === undefined) {
      if (chainedFrom === null || entry.position < chainedFrom) {
        expected++;
        lastMac = GENESIS;
        continue;
      }
      return damage(expected, "inserted", "an event without a chain link, after chaining began");
    }
    if (!entry.genuine) return damage(expected, "edited", "its content no longer matches its chain mac");
    if (entry.link.revision < expected) return damage(expected, "inserted", `a copy of the event written as revision ${entry.link.revision}`);
    if (entry.link.revision > expected) {
      return writtenAt(expected)
        ? damage(expected, "re-ordered", `holds the event written as revision ${entry.link.revision}`)
        : damage(expected, "deleted", `the event written as revision ${expected} is gone; the one written as ${entry.link.revision} follows`);
    }
    if (entry.link.prev !== lastMac) return damage(expected - 1, "edited", `the event after it was chained to another predecessor`);
    expected++;
    lastMac = entry.link.mac;
  }
  return undefined;
};

/**
 * The next page of the walk; should a row in it not read as an event, the events before that row
 * and the row's error, so the walk can name it and go on past it.
 */
const readPage = (store: EventStoreShape, after: number) =>
  store.readAll({ after, limit: PAGE }).pipe(
    Effect.map((page): { page: ReadonlyArray<RecordedEvent>; unreadable?: UndecodableEvent } => ({ page })),
    Effect.catchTag("UndecodableEvent", () =>
      Effect.gen(function* () {
        // Only a damaged page is read one event at a time, up to its first unreadable row.
        const page: Array<RecordedEvent> = [];
        for (let cursor = after; page.length < PAGE;) {
          const next = yield* store.readAll({ after: cursor, limit: 1 }).pipe(Effect.catchTag("UndecodableEvent", (unreadable) => Effect.succeed(unreadable)));
          if (next instanceof UndecodableEvent) return { page, unreadable: next };
          const event = next[0];
          if (event === undefined) break;
          page.push(event);
          cursor = event.globalPosition;
        }
        return { page };
      }),
    ),
  );

export interface VerifyOptions {
  /** An exported seal to hold the store to, instead of the latest seal in the store. */
  readonly seal?: ExportedSeal;
}

export const verifyLedger = (
  options: VerifyOptions = {},
): Effect.Effect<LedgerVerification, DependencyUnavailable | UndecodableEvent, EventStore | LedgerCrypto> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const crypto = yield* LedgerCrypto;
    const damage: Array<ChainDamage> = [];

    // The seal first: its heads are watched for during the walk.
    const fromStore = yield* sealedHeads(yield* store.readStream(LEDGER_SEAL_STREAM));
    let sealHeads: ReadonlyMap<string, StreamHead> = fromStore.heads;
    let seal: LedgerVerification["seal"] = null;
    if (options.seal !== undefined) {
      const problem = exportedSealProblem(crypto, options.seal);
      if (problem !== undefined)
        damage.push({ streamName: LEDGER_SEAL_STREAM, revision: options.seal.sealRevision, kind: "edited", detail: `the exported seal fails: ${problem}` });
      else if (options.seal.publicKey !== crypto.publicKey) {
        damage.push({
          streamName: LEDGER_SEAL_STREAM,
          revision: options.seal.sealRevision,
          kind: "edited",
          detail: "the exported seal was signed by another key than this deployment's",
        });
      }
      sealHeads = new Map(options.seal.heads.map((head) => [head.stream, head]));
      seal = { revision: options.seal.sealRevision, sealedAt: options.seal.sealedAt, streams: options.seal.streams, root: options.seal.root, source: "export" };
    } else if (fromStore.latest !== undefined) {
      const latest = fromStore.latest;
      seal = { revision: latest.revision, sealedAt: latest.sealedAt, streams: latest.streams, root: latest.root, source: "store" };
      const problem = exportedSealProblem(crypto, {
        ...latest,
        format: "its-ledger-seal/v1",
        sealRevision: latest.revision,
        heads: [...fromStore.heads.values()],
      });
      if (problem !== undefined)
        damage.push({ streamName: LEDGER_SEAL_STREAM, revision: latest.revision, kind: "edited", detail: `the latest seal fails: ${problem}` });
    }
    const observedAtSeal = new Map<string, string>();

    const checks = new Map<string, StreamCheck>();
    let events = 0;
    let unchainedEvents = 0;
    let chainedFrom: number | null = null;
    const checkOf = (streamName: string): StreamCheck => {
      let check = checks.get(streamName);
      if (check === undefined) checks.set(streamName, (check = { next: 0, lastMac: GENESIS, last: -1, suspect: undefined, damage: undefined }));
      return check;
    };
    let after = 0;
    for (;;) {
      const { page, unreadable } = yield* readPage(store, after);
      if (page.length === 0 && unreadable === undefined) break;
      for (const event of page) {
        events++;
        const check = checkOf(event.streamName);
        check.last = Math.max(check.last, event.streamRevision);
        const link = chainLinkOf(event.metadata);
        if (link === undefined && chainedFrom === null) unchainedEvents++;
        if (link !== undefined) chainedFrom ??= event.globalPosition;
        const sealed = sealHeads.get(event.streamName);
        if (sealed?.revision === event.streamRevision) observedAtSeal.set(event.streamName, link?.mac ?? GENESIS);
        if (check.damage !== undefined) continue;
        const entry: Entry = {
          revision: event.streamRevision,
          position: event.globalPosition,
          link,
          genuine: link !== undefined && linkIsGenuine(crypto.mac, event.streamName, event, link),
        };
        if (check.suspect !== undefined) {
          check.suspect.push(entry);
          continue;
        }
        const intact =
          entry.revision === check.next &&
          (link === undefined ? chainedFrom === null : entry.genuine && link.revision === entry.revision && link.prev === check.lastMac);
        if (intact) {
          check.next++;
          check.lastMac = link?.mac ?? GENESIS;
        } else {
          check.suspect = [entry];
        }
      }
      after = page.at(-1)?.globalPosition ?? after;
      if (unreadable !== undefined) {
        // A row that does not read as an event was changed by hand: its stream is damaged there, and the walk goes on past it.
        events++;
        const check = checkOf(unreadable.streamName);
        check.last = Math.max(check.last, unreadable.revision);
        if (check.damage === undefined) {
          check.damage = {
            streamName: unreadable.streamName,
            revision: unreadable.revision,
            kind: "edited",
            detail: `the row does not read as an event: ${unreadable.problem}`,
          };
          damage.push(check.damage);
        }
        after = unreadable.globalPosition;
      }
    }

    for (const [streamName, check] of checks) {
      if (check.suspect === undefined) continue;
      const found = judge(streamName, check, check.suspect, chainedFrom);
      if (found !== undefined) {
        check.damage = found;
        damage.push(found);
      }
    }
    for (const [streamName, head] of sealHeads) {
      const check = checks.get(streamName);
      if (check?.damage !== undefined) continue;
      const last = check?.last ?? -1;
      if (last < head.revision) {
        damage.push({ streamName, revision: last + 1, kind: "tail cut", detail: `sealed at revision ${head.revision}, the stream ends at ${last}` });
      } else if (observedAtSeal.get(streamName) !== head.mac) {
        damage.push({ streamName, revision: head.revision, kind: "edited", detail: "the sealed head's mac differs" });
      }
    }
    damage.sort((a, b) => (a.streamName < b.streamName ? -1 : a.streamName > b.streamName ? 1 : a.revision - b.revision));
    return {
      events,
      streams: checks.size,
      unchained: { events: unchainedEvents, chainedFrom },
      seal,
      damage,
      ok: damage.length === 0,
    } satisfies LedgerVerification;
  });
