import type { DatabaseSync } from "node:sqlite";
import { Effect } from "effect";
import type { QuotaEvent } from "../../domain/quota-ledger.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import type { UsageProjectionShape, UsageRow } from "../../ports/projections.ts";
import {
  inReadTransaction,
  makeSqliteProjection,
  type SqliteProjectionContext,
  type SqliteProjectionDefinition,
  unavailable,
} from "./sqlite-projection.ts";

/**
 * Usage per account, month, operation and key, from the quota ledgers. A commit or release names
 * only its request, so open reservations are kept to attribute it; like the ledger, a commit or
 * release with no open reservation counts nothing.
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
    key_id TEXT NOT NULL
  ) STRICT;
`;

type Data<T extends QuotaEvent["type"]> = Extract<QuotaEvent, { type: T }>["data"];

const writer = (db: DatabaseSync) => {
  const count = (column: "reserved" | "committed" | "released" | "refused") =>
    db.prepare(
      `INSERT INTO usage (account_id, period, operation, key_id, ${column}) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT (account_id, period, operation, key_id) DO UPDATE SET ${column} = ${column} + 1`,
    );
  const counters = { reserved: count("reserved"), committed: count("committed"), released: count("released"), refused: count("refused") };
  const open = db.prepare(
    "INSERT OR REPLACE INTO usage_open_reservations (request_id, account_id, period, operation, key_id) VALUES (?, ?, ?, ?, ?)",
  );
  const find = db.prepare("SELECT account_id, period, operation, key_id FROM usage_open_reservations WHERE request_id = ?");
  const close = db.prepare("DELETE FROM usage_open_reservations WHERE request_id = ?");

  const finish = (requestId: string, column: "committed" | "released") => {
    const row = find.get(requestId) as { account_id: string; period: string; operation: string; key_id: string } | undefined;
    if (row === undefined) return;
    counters[column].run(row.account_id, row.period, row.operation, row.key_id);
    close.run(requestId);
  };

  return (event: RecordedEvent): void => {
    switch (event.type) {
      case "QuotaReserved": {
        const { requestId, accountId, period, operation, keyId } = event.data as unknown as Data<"QuotaReserved">;
        counters.reserved.run(accountId, period, operation, keyId);
        open.run(requestId, accountId, period, operation, keyId);
        return;
      }
      case "QuotaReservationRefused": {
        const { accountId, period, operation, keyId } = event.data as unknown as Data<"QuotaReservationRefused">;
        counters.refused.run(accountId, period, operation, keyId);
        return;
      }
      case "QuotaCommitted":
        return finish((event.data as unknown as Data<"QuotaCommitted">).requestId, "committed");
      case "QuotaReleased":
        return finish((event.data as unknown as Data<"QuotaReleased">).requestId, "released");
    }
  };
};

export const usageProjectionDefinition: SqliteProjectionDefinition = {
  name: "usage",
  category: "quota",
  schema,
  tables: ["usage", "usage_open_reservations"],
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
  return {
    ...projection,
    usageOf: (accountId) =>
      Effect.try({
        try: () =>
          inReadTransaction(context.db, () => {
            const rows = (rowsOf.all(accountId) as unknown as ReadonlyArray<UsageRecord>).map(
              (row): UsageRow => ({
                accountId: row.account_id,
                period: row.period,
                operation: row.operation,
                keyId: row.key_id,
                reserved: row.reserved,
                committed: row.committed,
                released: row.released,
                refused: row.refused,
              }),
            );
            const position = (positionOf.get(projection.name) as { position: number } | undefined)?.position ?? 0;
            return { position, value: rows };
          }),
        catch: unavailable,
      }),
  };
};
