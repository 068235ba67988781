import { Effect } from "effect";
import { ChainCrypto } from "../../ports/chain-crypto.ts";
import { Clock } from "../../ports/clock.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { EventStore, type EventStoreShape, type RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";
import { LEDGER_SEAL_STREAM } from "../event-sourcing/events/seal-events.ts";
import { type ChainLink, chainLinkOf, GENESIS, linkIsGenuine } from "./event-chain.ts";
import type { StreamHead } from "./merkle.ts";
import { missingSeal } from "./seal-freshness.ts";
import { type ExportedSeal, exportedSeal, exportedSealProblem, readSeals } from "./sealed-heads.ts";

/**
 * The whole store walked once in global order, every event's chain link checked (ledger/event-chain.ts),
 * then every stream held against the latest seal's heads. Damage is named by stream, revision (as
 * replay reads the stream) and kind; only a stream's first damage is reported, as all after it follows.
 * A stream the seal names and the store no longer holds is `gone`; seals missing by their schedule
 * (seal-freshness.ts) are `seal missing` on the seal stream.
 */
export type DamageKind = "edited" | "deleted" | "inserted" | "re-ordered" | "tail cut" | "gone" | "seal missing";

export interface ChainDamage {
  readonly streamName: string;
  readonly revision: number;
  readonly kind: DamageKind;
  readonly detail: string;
}

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
  /** LEDGER_SEAL_INTERVAL_SECONDS where the audit runs: for seals that recorded none, and for a store without seals. */
  readonly intervalSeconds: number;
}

/** The earliest time an event claims: its recording time, or its own `at` (covered by its mac) where that is earlier. */
const claimedTime = (event: RecordedEvent): number => {
  const recorded = Date.parse(event.recordedAt);
  const at = typeof event.data["at"] === "string" ? Date.parse(event.data["at"]) : Number.NaN;
  return Number.isNaN(at) || at > recorded ? recorded : at;
};

export const verifyChains = (
  options: VerifyOptions,
): Effect.Effect<ChainVerification, DependencyUnavailable | UndecodableEvent, EventStore | ChainCrypto | Clock> =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const crypto = yield* ChainCrypto;
    const now = (yield* Clock).now();
    const damage: Array<ChainDamage> = [];

    // The seal first: its heads are watched for during the walk.
    const fromStore = yield* readSeals();
    let sealHeads: ReadonlyMap<string, StreamHead> = fromStore.heads;
    let seal: ChainVerification["seal"] = null;
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
      const inStore = fromStore.latest !== undefined && fromStore.latest.revision >= options.seal.sealRevision;
      if (!inStore) {
        damage.push({
          streamName: LEDGER_SEAL_STREAM,
          revision: fromStore.next,
          kind: "tail cut",
          detail: `the exported seal is revision ${options.seal.sealRevision}; the store holds ${fromStore.latest === undefined ? "no seal" : `seals up to revision ${fromStore.latest.revision}`}`,
        });
      }
      sealHeads = new Map(options.seal.heads.map((head) => [head.stream, head]));
      const { sealRevision: revision, sealedAt, streams, root, intervalSeconds } = options.seal;
      seal = { revision, sealedAt, streams, root, intervalSeconds: intervalSeconds ?? null, source: "export" };
    } else if (fromStore.latest !== undefined) {
      const latest = fromStore.latest;
      seal = {
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
    }
    const observedAtSeal = new Map<string, string>();

    const checks = new Map<string, StreamCheck>();
    let events = 0;
    let unchainedEvents = 0;
    let chainedFrom: number | null = null;
    let oldest = Number.POSITIVE_INFINITY;
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
        if (event.streamName !== LEDGER_SEAL_STREAM) oldest = Math.min(oldest, claimedTime(event));
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
      if (last === -1) {
        damage.push({ streamName, revision: 0, kind: "gone", detail: `sealed at revision ${head.revision}, the store holds no event of it` });
      } else if (last < head.revision) {
        damage.push({ streamName, revision: last + 1, kind: "tail cut", detail: `sealed at revision ${head.revision}, the stream ends at ${last}` });
      } else if (observedAtSeal.get(streamName) !== head.mac) {
        damage.push({ streamName, revision: head.revision, kind: "edited", detail: "the sealed head's mac differs" });
      }
    }
    const missing = missingSeal({
      now,
      newest: fromStore.latest,
      nextRevision: fromStore.next,
      configuredIntervalSeconds: options.intervalSeconds,
      oldestEventAt: oldest === Number.POSITIVE_INFINITY ? undefined : new Date(oldest),
    });
    if (missing !== undefined) damage.push({ streamName: LEDGER_SEAL_STREAM, ...missing, kind: "seal missing" });
    damage.sort((a, b) => (a.streamName < b.streamName ? -1 : a.streamName > b.streamName ? 1 : a.revision - b.revision));
    return {
      events,
      streams: checks.size,
      unchained: { events: unchainedEvents, chainedFrom },
      seal,
      damage,
      ok: damage.length === 0,
    } satisfies ChainVerification;
  });
