import { Option } from "effect";
import { accountDecider, type AccountEvent } from "../../domain/account.ts";
import { fold } from "../../domain/decider.ts";
import { type QuotaEvent, quotaLedgerDecider } from "../../domain/quota-ledger.ts";
import { replayUsage, type UsageCounts, usageLineKey } from "../../domain/usage-replay.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import type { ProjectedAccount, ProjectedKey, Snapshot, UsageRow } from "../../ports/projections.ts";
import { replayKeys } from "./audit-key-replay.ts";
import type { AuditDifference } from "./audit-report.ts";

/** A stored event with its decoded form: positions and times come from the one, meaning from the other. */
export interface Read<Event> {
  readonly recorded: RecordedEvent;
  readonly event: Event;
}

export interface ReplayedStreams {
  readonly accountId: string;
  readonly accountEvents: ReadonlyArray<Read<AccountEvent>>;
  readonly ledgers: ReadonlyArray<{ readonly period: string; readonly events: ReadonlyArray<Read<QuotaEvent>> }>;
  readonly periods: ReadonlyArray<string>;
}

export interface ProjectionSnapshots {
  readonly usage: Snapshot<ReadonlyArray<UsageRow>>;
  readonly keys: Snapshot<{ readonly account: Option.Option<ProjectedAccount>; readonly keys: ReadonlyArray<ProjectedKey> }>;
}

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
const eventsOf = <Event>(reads: ReadonlyArray<Read<Event>>) => reads.map(({ event }) => event);

/**
 * The replay against what was recorded: the ledgers' own state (the decider that enforced the
 * quota), the usage and key projections as of the position each reached (events past it are named
 * in a note, not compared), and the account decider's active keys.
 */
export const verifyReplay = ({ accountId, accountEvents, ledgers, periods }: ReplayedStreams, snapshots: ProjectionSnapshots) => {
  const check = comparer();
  const notes: Array<string> = [];

  for (const { period, events } of ledgers) {
    const ledger = fold(quotaLedgerDecider, eventsOf(events));
    const replay = replayUsage(eventsOf(events));
    const sum = (field: keyof UsageCounts) => replay.lines.reduce((total, line) => total + line[field], 0);
    check.compare("quota ledger", `ledger ${period}`, "transformations", sum("committed"), ledger.used);
    check.compare("quota ledger", `ledger ${period}`, "refusals", sum("refused"), ledger.refused);
    check.compare("quota ledger", `ledger ${period}`, "open reservations", replay.open, ledger.reservations.size);
  }

  const usagePosition = snapshots.usage.position;
  const recordedRows = new Map<string, UsageRow>(snapshots.usage.value.filter((row) => periods.includes(row.period)).map((row) => [usageLineKey(row), row]));
  let usageBehind = 0;
  for (const { events } of ledgers) {
    usageBehind += events.filter(({ recorded }) => recorded.globalPosition > usagePosition).length;
    const replay = replayUsage(eventsOf(events.filter(({ recorded }) => recorded.globalPosition <= usagePosition)));
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

  const keyPosition = snapshots.keys.position;
  const replayedKeys = replayKeys(eventsOf(accountEvents.filter(({ recorded }) => recorded.globalPosition <= keyPosition)));
  const projectedAccount = Option.getOrUndefined(snapshots.keys.value.account);
  for (const field of ["email", "name", "plan", "openedAt"] as const) {
    check.compare("key projection", `account ${accountId}`, field, replayedKeys.account?.[field] ?? null, projectedAccount?.[field] ?? null);
  }
  const projectedKeys = new Map(snapshots.keys.value.keys.map((key) => [key.keyId, key]));
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

  const replayedActive = [...replayKeys(eventsOf(accountEvents)).keys.values()]
    .filter((key) => key.revokedAt === null)
    .map((key) => key.keyId)
    .sort()
    .join(",");
  const state = fold(accountDecider, eventsOf(accountEvents));
  const deciderActive = state.status === "open" ? [...state.keys.keys()].sort().join(",") : "";
  check.compare("account", `account ${accountId}`, "active keys", replayedActive, deciderActive);

  return { ...check.result(), notes, usageProjectionPosition: usagePosition, keyProjectionPosition: keyPosition };
};
