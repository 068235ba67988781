import { Effect, Option } from "effect";
import { accountDecider, type AccountEvent, accountStream } from "../domain/account.ts";
import { billingPeriodOf } from "../domain/billing-period.ts";
import { fold } from "../domain/decider.ts";
import { echo, echoJson } from "../domain/echo.ts";
import { type HolderAccessEvent, holderStream } from "../domain/holder-access.ts";
import { type QuotaEvent, quotaLedgerDecider, quotaStream } from "../domain/quota-ledger.ts";
import { replayUsage, type UsageCounts, usageIncrement, type UsageLine, usageLineKey, ZERO_USAGE } from "../domain/usage-replay.ts";
import { Clock } from "../ports/clock.ts";
import { EventStore, type RecordedEvent } from "../ports/event-store.ts";
import { KeyProjection, UsageProjection, type UsageRow } from "../ports/projections.ts";
import { type Actor, actorOf } from "./actor.ts";
import { InvalidRequest, NotFound } from "./errors.ts";
import { accountEventCodec } from "./events/account-events.ts";
import { decodeEvent, type EventCodec } from "./events/event-codec.ts";
import { holderAccessEventCodec } from "./events/holder-access-events.ts";
import { quotaEventCodec } from "./events/quota-events.ts";

/**
 * The audit of one account: its quota ledgers and key lifecycle replayed from the event store
 * alone, printed as a history, then checked against the projections (usage, keys) and against the
 * ledgers' own state. Projections are read first, as one snapshot each, and compared with the
 * events up to the position they reached, so a projection that is merely behind is not a mismatch.
 */
export interface AuditRange {
  /** Inclusive. */
  readonly from: Date | undefined;
  /** Exclusive. */
  readonly to: Date | undefined;
}

export interface AuditEntry {
  readonly position: number;
  readonly at: string;
  readonly type: string;
  readonly what: string;
  readonly keyId: string | null;
  readonly requestId: string | null;
  readonly operation: string | null;
  readonly period: string | null;
  /** Who acted (from the event's metadata); null for events written before actors were recorded. */
  readonly actor: Actor | null;
}

export interface AuditKey {
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

export interface AuditDifference {
  readonly source: "usage projection" | "key projection" | "quota ledger" | "account";
  readonly subject: string;
  readonly field: string;
  readonly replayed: string | number | null;
  readonly recorded: string | number | null;
}

export interface AuditReport {
  readonly accountId: string;
  readonly generatedAt: string;
  readonly range: { readonly from: string | null; readonly to: string | null };
  /** The billing periods whose ledgers were replayed and checked in full. */
  readonly periods: ReadonlyArray<string>;
  readonly account: { readonly email: string; readonly name: string; readonly plan: string; readonly openedAt: string };
  /** Every account, console-access (holder-<account>) and quota event in the range, in store order. */
  readonly history: ReadonlyArray<AuditEntry>;
  /** What the history adds up to: all of it, and per period, operation and key. */
  readonly totals: UsageCounts & { readonly lines: ReadonlyArray<UsageLine> };
  readonly keys: ReadonlyArray<AuditKey>;
  readonly verification: {
    /** The newest event of this account in the store. */
    readonly storePosition: number;
    readonly usageProjectionPosition: number;
    readonly keyProjectionPosition: number;
    /** How many values were compared. */
    readonly compared: number;
    readonly differences: ReadonlyArray<AuditDifference>;
    readonly notes: ReadonlyArray<string>;
  };
  /** True when no difference was found. */
  readonly ok: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** `YYYY-MM`, `YYYY-MM-DD` (UTC) or an ISO date-time; a date or month as `to` includes all of it. */
const parseBound = (field: "from" | "to", text: string): Date | InvalidRequest => {
  const invalid = new InvalidRequest({
    message: `${field} must be YYYY-MM, YYYY-MM-DD or an ISO 8601 date-time with a zone; got ${echoJson(text)}.`,
    details: [{ path: field, message: "not a date" }],
  });
  const whole = MONTH.test(text) ? `${text}-01` : text;
  if (!DATE.test(whole) && !DATE_TIME.test(whole)) return invalid;
  const instant = new Date(DATE.test(whole) ? `${whole}T00:00:00Z` : whole);
  if (Number.isNaN(instant.getTime())) return invalid;
  if (field === "from") return instant;
  if (MONTH.test(text)) return new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + 1, 1));
  return new Date(instant.getTime() + (DATE.test(text) ? 24 * 60 * 60_000 : 1));
};

export const parseAuditRange = (from: string | undefined, to: string | undefined): Effect.Effect<AuditRange, InvalidRequest> =>
  Effect.suspend(() => {
    const start = from === undefined ? undefined : parseBound("from", from);
    const end = to === undefined ? undefined : parseBound("to", to);
    if (start instanceof InvalidRequest) return Effect.fail(start);
    if (end instanceof InvalidRequest) return Effect.fail(end);
    if (start !== undefined && end !== undefined && start >= end) {
      return Effect.fail(new InvalidRequest({ message: "from must be before to.", details: [{ path: "from", message: "after to" }] }));
    }
    return Effect.succeed({ from: start, to: end });
  });

/** The billing periods from `first` to `last` (both months included). */
const periodsBetween = (first: Date, last: Date): ReadonlyArray<string> => {
  const periods: Array<string> = [];
  for (let month = billingPeriodOf(first).startsAt; month <= last; month = billingPeriodOf(month).resetsAt) {
    periods.push(billingPeriodOf(month).id);
  }
  return periods;
};

/** A stored event with its decoded form: positions and times come from the one, meaning from the other. */
interface Read<Event> {
  readonly recorded: RecordedEvent;
  readonly event: Event;
}

const decodeAll = <Event extends { readonly type: string }>(codec: EventCodec<Event>, events: ReadonlyArray<RecordedEvent>) =>
  Effect.forEach(events, (recorded) => Effect.map(decodeEvent(codec, recorded), (event): Read<Event> => ({ recorded, event })));
const atOf = (event: RecordedEvent): string => (typeof event.data["at"] === "string" ? event.data["at"] : event.recordedAt);

const describeAccountEvent = (event: AccountEvent): Pick<AuditEntry, "what" | "keyId"> => {
  switch (event.type) {
    case "AccountOpened":
      return { what: `account opened on the ${event.data.plan} plan`, keyId: null };
    case "AccountPlanChanged":
      return { what: `plan changed from ${event.data.from} to ${event.data.to}`, keyId: null };
    case "ApiKeyIssued":
      return { what: `key issued (${JSON.stringify(event.data.name)})`, keyId: event.data.keyId };
    case "ApiKeyRevoked":
      return { what: "key revoked", keyId: event.data.keyId };
  }
};

/** Console access: invitations, passwords and sessions (stream holder-<account>); only hashes were recorded. */
const describeHolderEvent = (event: HolderAccessEvent): string => {
  switch (event.type) {
    case "InvitationIssued":
      return `console invitation issued for ${event.data.email}, valid until ${event.data.expiresAt}`;
    case "InvitationUsed":
      return "console invitation used";
    case "InvitationRevoked":
      return `console invitation ${event.data.invitationId} revoked (${event.data.reason === "operator" ? "by the operator" : "a password was set"})`;
    case "PasswordSet":
      return "console password set";
    case "ConsoleSessionStarted":
      return `console session ${event.data.sessionId} started (signed in)`;
    case "ConsoleSessionEnded":
      return `console session ${event.data.sessionId} ended (${event.data.reason})`;
  }
};

/** `units`: those of the request the event concerns (a document reserves one per page). */
const describeQuotaEvent = (event: QuotaEvent, operation: string, units: number): string => {
  switch (event.type) {
    case "QuotaReserved":
      return units === 1 ? `${operation}: quota unit reserved` : `${operation}: ${units} quota units reserved`;
    case "QuotaCommitted":
      return units === 1 ? `${operation}: transformation counted` : `${operation}: ${units} transformations counted`;
    case "QuotaReleased":
      return `${operation}: reservation released (${event.data.reason})`;
    case "QuotaReservationRefused": {
      const asked = event.data.units === 1 ? "" : `${event.data.units} units asked, `;
      return `${operation}: refused, quota used up (${asked}${event.data.used}/${event.data.limit}${event.data.reserved === null ? "" : `, ${event.data.reserved} reserved`})`;
    }
  }
};

interface ReplayedKeys {
  readonly account: { email: string; name: string; plan: string; openedAt: string } | undefined;
  readonly keys: ReadonlyMap<string, AuditKey>;
}

/** The key lifecycle, replayed independently of the account decider (which forgets revoked keys). */
const replayKeys = (events: ReadonlyArray<Read<AccountEvent>>): ReplayedKeys => {
  let account: ReplayedKeys["account"];
  const keys = new Map<string, AuditKey>();
  for (const { event } of events) {
    switch (event.type) {
      case "AccountOpened":
        account = { email: event.data.email, name: event.data.name, plan: event.data.plan, openedAt: event.data.at };
        break;
      case "AccountPlanChanged":
        if (account) account = { ...account, plan: event.data.to };
        break;
      case "ApiKeyIssued":
        if (!keys.has(event.data.keyId))
          keys.set(event.data.keyId, { keyId: event.data.keyId, name: event.data.name, createdAt: event.data.at, revokedAt: null });
        break;
      case "ApiKeyRevoked": {
        const key = keys.get(event.data.keyId);
        if (key && key.revokedAt === null) keys.set(key.keyId, { ...key, revokedAt: event.data.at });
        break;
      }
    }
  }
  return { account, keys };
};

/** Collects differences between replayed and recorded values, counting every comparison. */
const comparer = () => {
  const differences: Array<AuditDifference> = [];
  let compared = 0;
  return {
    compare: (source: AuditDifference["source"], subject: string, field: string, replayed: string | number | null, recorded: string | number | null) => {
      compared++;
      if (replayed !== recorded) differences.push({ source, subject, field, replayed, recorded });
    },
    result: () => ({ compared, differences }),
  };
};

const USAGE_FIELDS = ["reserved", "committed", "released", "refused"] as const;

export const auditAccount = (accountId: string, range: AuditRange) =>
  Effect.gen(function* () {
    const store = yield* EventStore;
    const usageProjection = yield* UsageProjection;
    const keyProjection = yield* KeyProjection;
    const now = (yield* Clock).now();

    // Projections first: the store read afterwards holds at least everything they applied.
    const usageSnapshot = yield* usageProjection.usageOf(accountId);
    const keySnapshot = yield* keyProjection.keysOf(accountId);

    const accountEvents = yield* decodeAll(accountEventCodec, yield* store.readStream(accountStream(accountId)));
    const opened = accountEvents.map(({ event }) => event).find((event) => event.type === "AccountOpened");
    if (opened === undefined) return yield* new NotFound({ message: `No account ${echo(accountId)}.` });

    const first = range.from !== undefined && range.from > new Date(opened.data.at) ? range.from : new Date(opened.data.at);
    const last = range.to !== undefined && range.to <= now ? new Date(range.to.getTime() - 1) : now;
    const periods = first <= last ? periodsBetween(first, last) : [];
    const ledgers = yield* Effect.forEach(periods, (period) =>
      store.readStream(quotaStream(accountId, period)).pipe(
        Effect.flatMap((events) => decodeAll(quotaEventCodec, events)),
        Effect.map((events) => ({ period, events })),
      ),
    );

    const inRange = ({ recorded }: Read<unknown>) => {
      const at = new Date(atOf(recorded));
      return (range.from === undefined || at >= range.from) && (range.to === undefined || at < range.to);
    };

    // History and totals: what happened in the range, each quota event attributed to its request.
    const history: Array<AuditEntry> = [];
    const totalLines = new Map<string, UsageLine>();
    const totals = { ...ZERO_USAGE } as { -readonly [K in keyof UsageCounts]: number };
    for (const read of accountEvents) {
      if (!inRange(read)) continue;
      const { recorded, event } = read;
      const { what, keyId } = describeAccountEvent(event);
      const actor = actorOf(recorded.metadata) ?? null;
      history.push({
        position: recorded.globalPosition,
        at: atOf(recorded),
        type: recorded.type,
        what,
        keyId,
        requestId: null,
        operation: null,
        period: null,
        actor,
      });
    }
    for (const read of yield* decodeAll(holderAccessEventCodec, yield* store.readStream(holderStream(accountId)))) {
      if (!inRange(read)) continue;
      const { recorded, event } = read;
      const actor = actorOf(recorded.metadata) ?? null;
      history.push({
        position: recorded.globalPosition,
        at: atOf(recorded),
        type: recorded.type,
        what: describeHolderEvent(event),
        keyId: null,
        requestId: null,
        operation: null,
        period: null,
        actor,
      });
    }
    for (const { events } of ledgers) {
      const { attributions } = replayUsage(events.map(({ event }) => event));
      events.forEach((read, index) => {
        if (!inRange(read)) return;
        const { recorded, event } = read;
        const attribution = attributions[index];
        const field = ({ QuotaReserved: "reserved", QuotaCommitted: "committed", QuotaReleased: "released", QuotaReservationRefused: "refused" } as const)[
          event.type
        ];
        if (attribution !== undefined) {
          const increment = usageIncrement(field, attribution.units);
          totals[field] += increment;
          const key = usageLineKey(attribution);
          const line = totalLines.get(key) ?? { period: attribution.period, operation: attribution.operation, keyId: attribution.keyId, ...ZERO_USAGE };
          totalLines.set(key, { ...line, [field]: line[field] + increment });
        }
        history.push({
          position: recorded.globalPosition,
          at: atOf(recorded),
          type: recorded.type,
          what: describeQuotaEvent(event, attribution?.operation ?? "unattributed", attribution?.units ?? 1),
          keyId: attribution?.keyId ?? null,
          requestId: attribution?.requestId ?? (typeof event.data.requestId === "string" ? event.data.requestId : null),
          operation: attribution?.operation ?? null,
          period: attribution?.period ?? null,
          actor: actorOf(recorded.metadata) ?? null,
        });
      });
    }
    history.sort((a, b) => a.position - b.position);

    const check = comparer();
    const notes: Array<string> = [];

    // The ledgers' own state (the decider that enforced the quota) against the replay.
    for (const { period, events } of ledgers) {
      const quotaEvents = events.map(({ event }) => event);
      const ledger = fold(quotaLedgerDecider, quotaEvents);
      const replay = replayUsage(quotaEvents);
      const sum = (field: keyof UsageCounts) => replay.lines.reduce((total, line) => total + line[field], 0);
      check.compare("quota ledger", `ledger ${period}`, "transformations", sum("committed"), ledger.used);
      check.compare("quota ledger", `ledger ${period}`, "refusals", sum("refused"), ledger.refused);
      check.compare("quota ledger", `ledger ${period}`, "open reservations", replay.open, ledger.reservations.size);
    }

    // The usage projection, as of its position.
    const usagePosition = usageSnapshot.position;
    const recordedRows = new Map<string, UsageRow>(usageSnapshot.value.filter((row) => periods.includes(row.period)).map((row) => [usageLineKey(row), row]));
    let usageBehind = 0;
    for (const { events } of ledgers) {
      usageBehind += events.filter(({ recorded }) => recorded.globalPosition > usagePosition).length;
      const replay = replayUsage(events.filter(({ recorded }) => recorded.globalPosition <= usagePosition).map(({ event }) => event));
      for (const line of replay.lines) {
        const key = usageLineKey(line);
        const row = recordedRows.get(key);
        recordedRows.delete(key);
        for (const field of USAGE_FIELDS) check.compare("usage projection", `usage ${key}`, field, line[field], row?.[field] ?? 0);
      }
    }
    for (const [key, row] of recordedRows) {
      for (const field of USAGE_FIELDS) check.compare("usage projection", `usage ${key}`, field, 0, row[field]);
    }
    if (usageBehind > 0)
      notes.push(
        `the usage projection (at position ${usagePosition}) has not yet applied ${usageBehind} quota event(s) of this account; those were not compared`,
      );

    // The key projection, as of its position; and the account decider's active keys.
    const keyPosition = keySnapshot.position;
    const replayedKeys = replayKeys(accountEvents.filter(({ recorded }) => recorded.globalPosition <= keyPosition));
    const projectedAccount = Option.getOrUndefined(keySnapshot.value.account);
    for (const field of ["email", "name", "plan", "openedAt"] as const) {
      check.compare("key projection", `account ${accountId}`, field, replayedKeys.account?.[field] ?? null, projectedAccount?.[field] ?? null);
    }
    const projectedKeys = new Map(keySnapshot.value.keys.map((key) => [key.keyId, key]));
    for (const key of replayedKeys.keys.values()) {
      const projected = projectedKeys.get(key.keyId);
      projectedKeys.delete(key.keyId);
      check.compare("key projection", `key ${key.keyId}`, "issued", key.createdAt, projected?.createdAt ?? null);
      check.compare("key projection", `key ${key.keyId}`, "name", key.name, projected?.name ?? null);
      check.compare("key projection", `key ${key.keyId}`, "revoked", key.revokedAt, projected === undefined ? null : projected.revokedAt);
    }
    for (const projected of projectedKeys.values()) check.compare("key projection", `key ${projected.keyId}`, "issued", null, projected.createdAt);
    const keysBehind = accountEvents.filter(({ recorded }) => recorded.globalPosition > keyPosition).length;
    if (keysBehind > 0)
      notes.push(`the key projection (at position ${keyPosition}) has not yet applied ${keysBehind} event(s) of this account; those were not compared`);

    const allKeys = replayKeys(accountEvents);
    const state = fold(
      accountDecider,
      accountEvents.map(({ event }) => event),
    );
    const replayedActive = [...allKeys.keys.values()]
      .filter((key) => key.revokedAt === null)
      .map((key) => key.keyId)
      .sort()
      .join(",");
    const deciderActive = state.status === "open" ? [...state.keys.keys()].sort().join(",") : "";
    check.compare("account", `account ${accountId}`, "active keys", replayedActive, deciderActive);

    const { compared, differences } = check.result();
    const storePosition = Math.max(
      0,
      ...accountEvents.map(({ recorded }) => recorded.globalPosition),
      ...ledgers.flatMap(({ events }) => events.map(({ recorded }) => recorded.globalPosition)),
    );
    const replayedAccount = allKeys.account!;
    return {
      accountId,
      generatedAt: now.toISOString(),
      range: { from: range.from?.toISOString() ?? null, to: range.to?.toISOString() ?? null },
      periods,
      account: replayedAccount,
      history,
      totals: { ...totals, lines: [...totalLines.values()].sort((a, b) => usageLineKey(a).localeCompare(usageLineKey(b))) },
      keys: [...allKeys.keys.values()],
      verification: { storePosition, usageProjectionPosition: usagePosition, keyProjectionPosition: keyPosition, compared, differences, notes },
      ok: differences.length === 0,
    } satisfies AuditReport;
  });
