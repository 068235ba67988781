import { createHash } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { Effect } from "effect";
import { quotaEventCodec } from "../../application/events/quota-events.ts";
import { canonicalJson } from "../../application/event-checksum.ts";
import { MerkleTree } from "../../domain/merkle-tree.ts";
import { logStepOf, type OpenReservation, type ReceiptBody } from "../../domain/receipt.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import type { ReceiptLogShape } from "../../ports/receipt-log.ts";
import { inReadTransaction, makeSqliteProjection, type SqliteProjectionContext, type SqliteProjectionDefinition, unavailable } from "./sqlite-projection.ts";

/**
 * The receipts log in the projections database: each leaf's canonical body (RFC 8785) and its
 * hash, numbered in the store's order, and the reservations still open (a commit names only its
 * request). The Merkle tree over the leaf hashes lives in memory and follows the table: it reads
 * the leaves it lacks before answering, and starts over when the table's leaves are no longer the
 * ones it holds (a rebuild by another process).
 */
export const receiptLogSchema = `
  CREATE TABLE IF NOT EXISTS receipt_leaves (
    leaf_index INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    body TEXT NOT NULL,
    leaf_hash BLOB NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS receipt_leaves_by_request ON receipt_leaves (request_id);
  CREATE INDEX IF NOT EXISTS receipt_leaves_by_account ON receipt_leaves (account_id, period, leaf_index);
  CREATE TABLE IF NOT EXISTS receipt_open_reservations (
    request_id TEXT PRIMARY KEY,
    reservation TEXT NOT NULL
  ) STRICT;
`;

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(data).digest());

const writer = (origin: string) => (db: DatabaseSync) => {
  const leafHashOf = new MerkleTree(sha256);
  const next = db.prepare("SELECT coalesce(max(leaf_index) + 1, 0) AS next FROM receipt_leaves");
  const insert = db.prepare("INSERT INTO receipt_leaves (leaf_index, request_id, account_id, period, body, leaf_hash) VALUES (?, ?, ?, ?, ?, ?)");
  const remember = db.prepare("INSERT OR REPLACE INTO receipt_open_reservations (request_id, reservation) VALUES (?, ?)");
  const find = db.prepare("SELECT reservation FROM receipt_open_reservations WHERE request_id = ?");
  const forget = db.prepare("DELETE FROM receipt_open_reservations WHERE request_id = ?");
  return (recorded: RecordedEvent): void => {
    const event = quotaEventCodec.decode(recorded);
    const found = find.get(event.data.requestId) as { reservation: string } | undefined;
    const step = logStepOf(event, found === undefined ? undefined : (JSON.parse(found.reservation) as OpenReservation));
    switch (step._tag) {
      case "Open":
        remember.run(step.reservation.requestId, JSON.stringify(step.reservation));
        return;
      case "Movement": {
        const leafIndex = (next.get() as { next: number }).next;
        const body: ReceiptBody = { ...step.body, logOrigin: origin, leafIndex };
        const text = canonicalJson(body as unknown as Parameters<typeof canonicalJson>[0]);
        insert.run(leafIndex, body.requestId, body.account, body.period, text, leafHashOf.leafHash(Buffer.from(text)));
        forget.run(body.requestId);
        return;
      }
      case "Nothing":
        return;
    }
  };
};

export const receiptLogDefinition = (origin: string): SqliteProjectionDefinition => ({
  name: "receipts",
  category: "quota",
  schema: receiptLogSchema,
  tables: ["receipt_leaves", "receipt_open_reservations"],
  writer: writer(origin),
});

export const makeSqliteReceiptLog = (context: SqliteProjectionContext, origin: string): ReceiptLogShape => {
  const projection = makeSqliteProjection(context, receiptLogDefinition(origin));
  const { db } = context;
  const hashesFrom = db.prepare("SELECT leaf_hash FROM receipt_leaves WHERE leaf_index >= ? ORDER BY leaf_index");
  const hashAt = db.prepare("SELECT leaf_hash FROM receipt_leaves WHERE leaf_index = ?");
  const bodiesOfRequest = db.prepare("SELECT body FROM receipt_leaves WHERE request_id = ? ORDER BY leaf_index");
  const bodiesOfAccount = db.prepare("SELECT body FROM receipt_leaves WHERE account_id = ? AND period = ? ORDER BY leaf_index");
  let tree = new MerkleTree(sha256);

  const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
  /** Brings the tree up to the table, in one read of the rows it lacks. */
  const synced = (): MerkleTree =>
    inReadTransaction(db, () => {
      if (tree.size > 0) {
        const last = hashAt.get(tree.size - 1) as { leaf_hash: Uint8Array } | undefined;
        if (last === undefined || !same(last.leaf_hash, tree.leafHashAt(tree.size - 1))) tree = new MerkleTree(sha256);
      }
      for (const row of hashesFrom.iterate(tree.size) as Iterable<{ leaf_hash: Uint8Array }>) tree.appendLeafHash(new Uint8Array(row.leaf_hash));
      return tree;
    });
  const read = <A>(body: () => A) => Effect.try({ try: body, catch: unavailable });
  const bodies = (rows: ReadonlyArray<unknown>) => (rows as ReadonlyArray<{ body: string }>).map((row) => JSON.parse(row.body) as ReceiptBody);

  return {
    ...projection,
    origin,
    size: read(() => synced().size),
    receiptsOf: (requestId) => read(() => bodies(bodiesOfRequest.all(requestId))),
    statementOf: (account, period) => read(() => bodies(bodiesOfAccount.all(account, period))),
    root: (size) => read(() => synced().root(size)),
    inclusionProof: (leafIndex, size) => read(() => synced().inclusionProof(leafIndex, size)),
    consistencyProof: (from, to) => read(() => synced().consistencyProof(from, to)),
  };
};
