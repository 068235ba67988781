import { Effect } from "effect";
import type { ChainCryptoShape } from "../../ports/chain-crypto.ts";
import { type EventStoreShape, type RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";
import { LEDGER_SEAL_STREAM } from "../event-sourcing/events/seal-events.ts";
import { type ChainLink, chainLinkOf, GENESIS, linkIsGenuine } from "./event-chain.ts";
import type { StreamHead } from "./merkle.ts";

/**
 * The walk of verify-chains.ts: the whole store read once in global order, each stream's chain
 * followed link by link; a stream turns suspect at its first anomaly, and is judged once all its
 * entries are known.
 */
export type DamageKind = "edited" | "deleted" | "inserted" | "re-ordered" | "tail cut" | "gone" | "seal missing";

export interface ChainDamage {
  readonly streamName: string;
  readonly revision: number;
  readonly kind: DamageKind;
  readonly detail: string;
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

/** The earliest time an event claims: its recording time, or its own `at` (covered by its mac) where that is earlier. */
const claimedTime = (event: RecordedEvent): number => {
  const recorded = Date.parse(event.recordedAt);
  const at = typeof event.data["at"] === "string" ? Date.parse(event.data["at"]) : Number.NaN;
  return Number.isNaN(at) || at > recorded ? recorded : at;
};

/** What the walk over the store gathers. */
export interface Walk {
  readonly checks: Map<string, StreamCheck>;
  /** The chain mac each sealed stream has at its sealed revision. */
  readonly observedAtSeal: Map<string, string>;
  events: number;
  unchainedEvents: number;
  chainedFrom: number | null;
  /** The earliest time an event outside the seal stream claims (epoch ms). */
  oldest: number;
}

const checkOf = ({ checks }: Walk, streamName: string): StreamCheck => {
  let check = checks.get(streamName);
  if (check === undefined) checks.set(streamName, (check = { next: 0, lastMac: GENESIS, last: -1, suspect: undefined, damage: undefined }));
  return check;
};

/** One event of the walk: its stream's chain goes on intact, or the stream turns suspect from here. */
const walkEvent = (walk: Walk, event: RecordedEvent, sealHeads: ReadonlyMap<string, StreamHead>, crypto: ChainCryptoShape): void => {
  walk.events++;
  const check = checkOf(walk, event.streamName);
  check.last = Math.max(check.last, event.streamRevision);
  if (event.streamName !== LEDGER_SEAL_STREAM) walk.oldest = Math.min(walk.oldest, claimedTime(event));
  const link = chainLinkOf(event.metadata);
  if (link === undefined && walk.chainedFrom === null) walk.unchainedEvents++;
  if (link !== undefined) walk.chainedFrom ??= event.globalPosition;
  const sealed = sealHeads.get(event.streamName);
  if (sealed?.revision === event.streamRevision) walk.observedAtSeal.set(event.streamName, link?.mac ?? GENESIS);
  if (check.damage !== undefined) return;
  const entry: Entry = {
    revision: event.streamRevision,
    position: event.globalPosition,
    link,
    genuine: link !== undefined && linkIsGenuine(crypto.mac, event.streamName, event, link),
  };
  if (check.suspect !== undefined) {
    check.suspect.push(entry);
    return;
  }
  const intact =
    entry.revision === check.next &&
    (link === undefined ? walk.chainedFrom === null : entry.genuine && link.revision === entry.revision && link.prev === check.lastMac);
  if (intact) {
    check.next++;
    check.lastMac = link?.mac ?? GENESIS;
  } else {
    check.suspect = [entry];
  }
};

/** A row that does not read as an event was changed by hand: its stream is damaged there, and the walk goes on past it. */
const walkUnreadable = (walk: Walk, unreadable: UndecodableEvent, damage: Array<ChainDamage>): void => {
  walk.events++;
  const check = checkOf(walk, unreadable.streamName);
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
};

/** The whole store walked once in global order, page by page. */
export const walkStore = (store: EventStoreShape, crypto: ChainCryptoShape, sealHeads: ReadonlyMap<string, StreamHead>, damage: Array<ChainDamage>) =>
  Effect.gen(function* () {
    const walk: Walk = {
      checks: new Map(),
      observedAtSeal: new Map(),
      events: 0,
      unchainedEvents: 0,
      chainedFrom: null,
      oldest: Number.POSITIVE_INFINITY,
    };
    let after = 0;
    for (;;) {
      const { page, unreadable } = yield* readPage(store, after);
      if (page.length === 0 && unreadable === undefined) break;
      for (const event of page) walkEvent(walk, event, sealHeads, crypto);
      after = page.at(-1)?.globalPosition ?? after;
      if (unreadable !== undefined) {
        walkUnreadable(walk, unreadable, damage);
        after = unreadable.globalPosition;
      }
    }
    return walk;
  });

/** Each suspect stream judged now that all its entries are known. */
export const judgeSuspects = ({ checks, chainedFrom }: Walk, damage: Array<ChainDamage>): void => {
  for (const [streamName, check] of checks) {
    if (check.suspect === undefined) continue;
    const found = judge(streamName, check, check.suspect, chainedFrom);
    if (found !== undefined) {
      check.damage = found;
      damage.push(found);
    }
  }
};
