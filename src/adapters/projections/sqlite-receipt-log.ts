import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { Effect, Layer, Stream } from "effect";
import { canonicalJson } from "../../application/event-sourcing/event-checksum.ts";
import { quotaEventCodec } from "../../application/event-sourcing/events/quota-events.ts";
import { MerkleTree } from "../../domain/receipts/merkle-tree.ts";
import { logStepOf, type OpenReservation, type ReceiptBody } from "../../domain/receipts/receipt.ts";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { eventCategory } from "../../ports/event-bus.ts";
import { type RecordedEvent, UndecodableEvent } from "../../ports/event-store.ts";
import { ReceiptLog, type ReceiptLogShape } from "../../ports/receipt-log.ts";
import { inReadTransaction, makeSqliteProjection, type SqliteProjectionContext, type SqliteProjectionDefinition, unavailable } from "./sqlite-projection.ts";
import { openProjectionDatabase, type SqliteProjectionsOptions } from "./sqlite-projections.ts";

/**
 * The receipts log in the projections database: each leaf's canonical body (RFC 8785) and its
 * hash, numbered in the store's order, and the reservations still open (a commit names only its
 * request). The Merkle tree over the leaf hashes lives in memory and follows the table: it reads
 * the leaves it lacks before answering. Each row also chains its leaf to every earlier one
 * (chain = SHA-256(previous chain ‖ leaf hash)), so one read tells whether the leaves the tree
 * holds are still the table's: after a rebuild by another process that changed any of them, the
 * tree starts over.
 */
export const receiptLogSchema = `
  CREATE TABLE IF NOT EXISTS receipt_leaves (
    leaf_index INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    body TEXT NOT NULL,
    leaf_hash BLOB NOT NULL,
    chain BLOB NOT NULL,
    position INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS receipt_leaves_by_request ON receipt_leaves (request_id);
  CREATE INDEX IF NOT EXISTS receipt_leaves_by_account ON receipt_leaves (account_id, period, leaf_index);
  CREATE TABLE IF NOT EXISTS receipt_open_reservations (
    request_id TEXT PRIMARY KEY,
    reservation TEXT NOT NULL
  ) STRICT;
`;

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(data).digest());
const NO_CHAIN = new Uint8Array(32);
const chained = (previous: Uint8Array, leafHash: Uint8Array) => new Uint8Array(createHash("sha256").update(previous).update(leafHash).digest());

const writer = (origin: string) => (db: DatabaseSync) => {
  const leafHashOf = new MerkleTree(sha256);
  const last = db.prepare("SELECT leaf_index, chain FROM receipt_leaves ORDER BY leaf_index DESC LIMIT 1");
  const insert = db.prepare(
    "INSERT INTO receipt_leaves (leaf_index, request_id, account_id, period, body, leaf_hash, chain, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
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
        const previous = last.get() as { leaf_index: number; chain: Uint8Array } | undefined;
        const leafIndex = previous === undefined ? 0 : previous.leaf_index + 1;
        const body: ReceiptBody = { ...step.body, logOrigin: origin, leafIndex };
        const text = canonicalJson(body as unknown as Parameters<typeof canonicalJson>[0]);
        const leafHash = leafHashOf.leafHash(Buffer.from(text));
        insert.run(
          leafIndex,
          body.requestId,
          body.account,
          body.period,
          text,
          leafHash,
          chained(previous?.chain ?? NO_CHAIN, leafHash),
          recorded.globalPosition,
        );
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
  const hashesFrom = db.prepare("SELECT leaf_hash, chain FROM receipt_leaves WHERE leaf_index >= ? ORDER BY leaf_index");
  const chainAt = db.prepare("SELECT chain FROM receipt_leaves WHERE leaf_index = ?");
  const bodiesOfRequest = db.prepare("SELECT body FROM receipt_leaves WHERE request_id = ? ORDER BY leaf_index");
  const bodiesOfAccount = db.prepare("SELECT body FROM receipt_leaves WHERE account_id = ? AND period = ? ORDER BY leaf_index");
  let tree = new MerkleTree(sha256);
  /** The chain value of the tree's last leaf, as the table held it. */
  let treeChain: Uint8Array = NO_CHAIN;

  /** Set when the stored log is found to differ from the store's: nothing is published until it is rebuilt. */
  let withheld: string | undefined;

  /** Brings the tree up to the table, in one read of the rows it lacks; refuses while the log is withheld. */
  const synced = (): MerkleTree =>
    inReadTransaction(db, () => {
      if (tree.size > 0) {
        const row = chainAt.get(tree.size - 1) as { chain: Uint8Array } | undefined;
        if (row === undefined || !Buffer.from(row.chain).equals(Buffer.from(treeChain))) {
          // Rebuilt since (by itsctl, from the store): what it holds now is the store's.
          tree = new MerkleTree(sha256);
          treeChain = NO_CHAIN;
          withheld = undefined;
        }
      }
      if (withheld !== undefined) throw new Error(withheld);
      for (const row of hashesFrom.iterate(tree.size) as Iterable<{ leaf_hash: Uint8Array; chain: Uint8Array }>) {
        tree.appendLeafHash(new Uint8Array(row.leaf_hash));
        treeChain = new Uint8Array(row.chain);
      }
      return tree;
    });
  const read = <A>(body: () => A) => Effect.try({ try: body, catch: (cause) => new DependencyUnavailable({ dependency: "receipts log", cause }) });
  const storedHashes = db.prepare("SELECT leaf_hash FROM receipt_leaves WHERE position <= ? ORDER BY leaf_index");
  const bodies = (rows: ReadonlyArray<unknown>) => (rows as ReadonlyArray<{ body: string }>).map((row) => JSON.parse(row.body) as ReceiptBody);

  return {
    ...projection,
    published: Effect.sync(() => withheld === undefined),
    rebuild: (events) => Effect.tap(projection.rebuild(events), () => Effect.sync(() => (withheld = undefined))),
    origin,
    size: read(() => synced().size),
    receiptsOf: (requestId) => read(() => bodies(bodiesOfRequest.all(requestId))),
    statementOf: (account, period) => read(() => bodies(bodiesOfAccount.all(account, period))),
    root: (size) => read(() => synced().root(size)),
    inclusionProof: (leafIndex, size) => read(() => synced().inclusionProof(leafIndex, size)),
    consistencyProof: (from, to) => read(() => synced().consistencyProof(from, to)),
    compareWith: (events, upTo) =>
      Effect.acquireUseRelease(
        read(() => {
          // The same writer on a database in memory: the log as the store's events make it now.
          const scratch = new DatabaseSync(":memory:");
          scratch.exec(receiptLogSchema);
          return scratch;
        }),
        (scratch) => {
          const write = writer(origin)(scratch);
          return Stream.runForEachArray(events, (page) =>
            Effect.try({
              try: () => {
                for (const event of page) if (event.globalPosition <= upTo && eventCategory(event.streamName) === "quota") write(event);
              },
              catch: (cause) => (cause instanceof UndecodableEvent ? cause : unavailable(cause)),
            }),
          ).pipe(
            Effect.andThen(
              read(() =>
                inReadTransaction(db, () => {
                  const stored = storedHashes.all(upTo) as unknown as ReadonlyArray<{ leaf_hash: Uint8Array }>;
                  const derived = scratch.prepare("SELECT leaf_hash FROM receipt_leaves ORDER BY leaf_index").all() as unknown as ReadonlyArray<{
                    leaf_hash: Uint8Array;
                  }>;
                  const common = Math.min(stored.length, derived.length);
                  let first: number | undefined;
                  for (let i = 0; i < common && first === undefined; i += 1) {
                    if (!Buffer.from(stored[i]!.leaf_hash).equals(Buffer.from(derived[i]!.leaf_hash))) first = i;
                  }
                  if (first === undefined && stored.length !== derived.length) first = common;
                  if (first !== undefined) {
                    withheld = `the receipts log differs from the event store from leaf ${first} on (stored ${stored.length} leaves, the store makes ${derived.length}): run itsctl ledger log rebuild`;
                  }
                  return { stored: stored.length, derived: derived.length, firstDifference: first };
                }),
              ),
            ),
          );
        },
        (scratch) => Effect.sync(() => scratch.close()),
      ),
  };
};

/**
 * The receipts log in a SQLite file of its own (DATA_DIR/receipts.sqlite): its origin is in every
 * leaf, so it is built for one origin, and kept apart from the projections a request reads.
 */
export const sqliteReceiptLogLayer = (options: SqliteProjectionsOptions & { readonly origin: string }) =>
  Layer.effect(ReceiptLog)(Effect.map(openProjectionDatabase(options, receiptLogSchema), (context) => makeSqliteReceiptLog(context, options.origin)));
