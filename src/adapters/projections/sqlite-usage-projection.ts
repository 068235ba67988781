import type { DatabaseSync } from "node:sqlite";
import { Effect } from "effect";
import { quotaEventCodec } from "../../application/event-sourcing/events/quota-events.ts";
import type { QuotaEvent } from "../../domain/quota-ledger.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import { RECENT_REQUESTS_KEPT, type UsageProjectionShape, type UsageRequest, type UsageRow } from "../../ports/projections.ts";
import { inReadTransaction, makeSqliteProjection, type SqliteProjectionContext, type SqliteProjectionDefinition, unavailable } from "./sqlite-projection.ts";

/**
 * Usage per account, month, operation and key, from the quota ledgers. A commit or release names
 * only its request, so open reservations (with their units: a document holds one per page) are
 * kept to attribute it; like the ledger, a commit or release with no open reservation counts
 * nothing. Reserved, committed and released count units, refused counts requests.
 */
const schema = `
  CREATE TABLE IF NOT EXISTS usage (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    operation TEXT NOT NULL,
    key_id TEXT NOT NULL,
    reserved INTEGER NOT NULL DEFAULT 0,
    committed INTEGER NOT NULL DEFAULT 0,
    released INTEGER NOT NULL DEFAULT 0,
    refused INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period, operation, key_id)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS usage_open_reservations (
    request_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    operation TEXT NOT NULL,
    key_id TEXT NOT NULL,
    units INTEGER NOT NULL DEFAULT 1
  ) STRICT;
  CREATE TABLE IF NOT EXISTS usage_daily (
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    day TEXT NOT NULL,
    operation TEXT NOT NULL,
    committed INTEGER NOT NULL,
    PRIMARY KEY (account_id, period, day, operation)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS usage_requests (
    seq INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL,
    at TEXT NOT NULL,
    operation TEXT NOT NULL,
    key_id TEXT NOT NULL,
    outcome TEXT NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS usage_requests_by_account ON usage_requests (account_id, seq);
  CREATE TABLE IF NOT EXISTS usage_key_last_used (
    key_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    at TEXT NOT NULL
  ) STRICT;
`;

/** Open reservations recorded before documents had no units column: each of them held one unit. */
const addUnitsColumn = (db: DatabaseSync) => {
  const columns = db.prepare("SELECT name FROM pragma_table_info('usage_open_reservations')").all() as unknown as ReadonlyArray<{ name: string }>;
  if (!columns.some((column) => column.name === "units")) db.exec("ALTER TABLE usage_open_reservations ADD COLUMN units INTEGER NOT NULL DEFAULT 1");
};

const writer = (db: DatabaseSync) => {
  addUnitsColumn(db);
  const count = (column: "reserved" | "committed" | "released" | "refused") =>
    db.prepare(
      `INSERT INTO usage (account_id, period, operation, key_id, ${column}) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, period, operation, key_id) DO UPDATE SET ${column} = ${column} + excluded.${column}`,
    );
  const counters = { reserved: count("reserved"), committed: count("committed"), released: count("released"), refused: count("refused") };
  const open = db.prepare(
    "INSERT OR REPLACE INTO usage_open_reservations (request_id, account_id, period, operation, key_id, units) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const find = db.prepare("SELECT account_id, period, operation, key_id, units FROM usage_open_reservations WHERE request_id = ?");
  const close = db.prepare("DELETE FROM usage_open_reservations WHERE request_id = ?");
  const daily = db.prepare(
    `INSERT INTO usage_daily (account_id, period, day, operation, committed) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, period, day, operation) DO UPDATE SET committed = committed + excluded.committed`,
  );
  const request = db.prepare(
    "INSERT INTO usage_requests (request_id, account_id, at, operation, key_id, outcome) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING",
  );
  // Only the newest RECENT_REQUESTS_KEPT of an account stay: the list is for a glance, the ledger holds the rest.
  const prune = db.prepare(
    `DELETE FROM usage_requests WHERE account_id = ? AND seq <= (
       SELECT seq FROM usage_requests WHERE account_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ${RECENT_REQUESTS_KEPT})`,
  );
  const outcome = db.prepare("UPDATE usage_requests SET outcome = ? WHERE request_id = ?");
  const used = db.prepare(
    "INSERT INTO usage_key_last_used (key_id, account_id, at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET at = max(at, excluded.at)",
  );
  const requested = (data: Extract<QuotaEvent, { type: "QuotaReserved" | "QuotaReservationRefused" }>["data"], result: "pending" | "refused") => {
    request.run(data.requestId, data.accountId, data.at, data.operation, data.keyId, result);
    prune.run(data.accountId, data.accountId);
    used.run(data.keyId, data.accountId, data.at);
  };

  const finish = (requestId: string, column: "committed" | "released", at: string) => {
    const row = find.get(requestId) as { account_id: string; period: string; operation: string; key_id: string; units: number } | undefined;
    if (row === undefined) return;
    counters[column].run(row.account_id, row.period, row.operation, row.key_id, row.units);
    close.run(requestId);
    outcome.run(column === "committed" ? "succeeded" : "failed", requestId);
    if (column === "committed") daily.run(row.account_id, row.period, at.slice(0, 10), row.operation, row.units);
  };

  return (recorded: RecordedEvent): void => {
    const event = quotaEventCodec.decode(recorded);
    switch (event.type) {
      case "QuotaReserved": {
        const data = event.data;
        const { requestId, accountId, period, operation, keyId, units } = data;
        counters.reserved.run(accountId, period, operation, keyId, units);
        open.run(requestId, accountId, period, operation, keyId, units);
        requested(data, "pending");
        return;
      }
      case "QuotaReservationRefused": {
        const data = event.data;
        counters.refused.run(data.accountId, data.period, data.operation, data.keyId, 1);
        requested(data, "refused");
        return;
      }
      case "QuotaCommitted":
        return finish(event.data.requestId, "committed", event.data.at);
      case "QuotaReleased":
        return finish(event.data.requestId, "released", event.data.at);
    }
  };
};

export const usageProjectionDefinition: SqliteProjectionDefinition = {
  name: "usage",
  category: "quota",
  schema,
  tables: ["usage", "usage_open_reservations", "usage_daily", "usage_requests", "usage_key_last_used"],
  writer,
};

interface UsageRecord {
  readonly account_id: string;
  readonly period: string;
  readonly operation: string;
  readonly key_id: string;
  readonly reserved: number;
  readonly committed: number;
  readonly released: number;
  readonly refused: number;
}

export const makeSqliteUsageProjection = (context: SqliteProjectionContext): UsageProjectionShape => {
  const projection = makeSqliteProjection(context, usageProjectionDefinition);
  const rowsOf = context.db.prepare("SELECT * FROM usage WHERE account_id = ? ORDER BY period, operation, key_id");
  const positionOf = context.db.prepare("SELECT position FROM checkpoints WHERE projection = ?");
  const dailyOf = context.db.prepare("SELECT day, operation, committed FROM usage_daily WHERE account_id = ? AND period = ? ORDER BY day, operation");
  const recentOf = context.db.prepare("SELECT request_id, at, operation, key_id, outcome FROM usage_requests WHERE account_id = ? ORDER BY seq DESC LIMIT ?");
  const lastUsedOf = context.db.prepare("SELECT key_id, at FROM usage_key_last_used WHERE account_id = ?");
  return {
    ...projection,
    activityOf: (accountId, { period, recent }) =>
      Effect.try({
        try: () =>
          inReadTransaction(context.db, () => {
            const daily = (dailyOf.all(accountId, period) as unknown as ReadonlyArray<{ day: string; operation: string; committed: number }>).map(
              ({ day, operation, committed }) => ({ day, operation, committed }),
            );
            const requests = recentOf.all(accountId, Math.min(recent, RECENT_REQUESTS_KEPT)) as unknown as ReadonlyArray<{
              request_id: string;
              at: string;
              operation: string;
              key_id: string;
              outcome: UsageRequest["outcome"];
            }>;
            const lastUsed = (lastUsedOf.all(accountId) as unknown as ReadonlyArray<{ key_id: string; at: string }>).map(({ key_id, at }) => ({
              keyId: key_id,
              at,
            }));
            const position = (positionOf.get(projection.name) as { position: number } | undefined)?.position ?? 0;
            return {
              position,
              value: {
                daily,
                recent: requests.map((row) => ({ requestId: row.request_id, at: row.at, operation: row.operation, keyId: row.key_id, outcome: row.outcome })),
                lastUsed,
              },
            };
          }),
        catch: unavailable,
      }),
    usageOf: (accountId) =>
      Effect.try({
        try: () =>
          inReadTransaction(context.db, () => {
            const rows = (rowsOf.all(accountId) as unknown as ReadonlyArray<UsageRecord>).map((row): UsageRow => ({
              accountId: row.account_id,
              period: row.period,
              operation: row.operation,
              keyId: row.key_id,
              reserved: row.reserved,
              committed: row.committed,
              released: row.released,
              refused: row.refused,
            }));
            const position = (positionOf.get(projection.name) as { position: number } | undefined)?.position ?? 0;
            return { position, value: rows };
          }),
        catch: unavailable,
      }),
  };
};
