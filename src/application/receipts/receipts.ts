import { Effect, Schedule } from "effect";
import { billTotals, type ReceiptBody } from "../../domain/receipts/receipt.ts";
import type { JsonValue } from "../../ports/event-store.ts";
import { NoteSigner } from "../../ports/note-signer.ts";
import { ReceiptLog } from "../../ports/receipt-log.ts";
import { InvalidRequest, NotFound } from "../errors.ts";
import { canonicalJson } from "../event-sourcing/event-checksum.ts";
import { catchUpFromStore } from "../event-sourcing/projection-runner.ts";

/**
 * What a customer holds to check a bill without trusting us: receipts signed with the log's key,
 * checkpoints (C2SP tlog-checkpoint in a signed note) and the proofs between them. The log is
 * the store's quota ledgers read in order (ports/receipt-log.ts); nothing here writes to it.
 */
export interface SignedReceipt {
  readonly body: ReceiptBody;
  /** The signed-note key id, hex. */
  readonly keyId: string;
  /** Ed25519 over the body's canonical JSON (RFC 8785), raw 64 bytes, base64. */
  readonly signature: string;
}

const base64 = (hash: Uint8Array) => Buffer.from(hash).toString("base64");

export const signReceipt = (body: ReceiptBody) =>
  Effect.map(NoteSigner, (signer): SignedReceipt => ({
    body,
    keyId: signer.keyId,
    signature: signer.sign(new TextEncoder().encode(canonicalJson(body as unknown as JsonValue))),
  }));

/** The log's head now, as a signed checkpoint note: origin, size, base64 root. */
export const currentCheckpoint = Effect.gen(function* () {
  const log = yield* ReceiptLog;
  const size = yield* log.size;
  const root = yield* log.root(size);
  const note = (yield* NoteSigner).signNote(`${log.origin}\n${size}\n${base64(root)}\n`);
  return { size, note };
});

/** A request's receipts (its charge, or its release), signed; 404 for a request of another account or none. */
export const receiptsOf = (account: string, requestId: string) =>
  Effect.gen(function* () {
    const log = yield* ReceiptLog;
    const find = Effect.map(log.receiptsOf(requestId), (bodies) => bodies.filter((body) => body.account === account));
    let bodies = yield* find;
    // A request that ended a moment ago (a failure's release is logged after its error is sent) may
    // not be in the log yet: the log catches up with the store before answering that it has none.
    if (bodies.length === 0) {
      yield* catchUpFromStore(log);
      bodies = yield* find;
    }
    if (bodies.length === 0) return yield* new NotFound({ message: `no receipt for request ${requestId.slice(0, 64)} of this account` });
    return yield* Effect.forEach(bodies, signReceipt);
  });

const sizeWithin = (name: string, value: number, size: number) =>
  Number.isSafeInteger(value) && value >= 1 && value <= size
    ? Effect.void
    : new InvalidRequest({ message: `${name} must be a tree size from 1 to ${size}`, details: [{ path: name, message: `1 to ${size}` }] });

/** The audit path of a request's newest leaf in the tree of `treeSize` leaves. */
export const inclusionProofOf = (account: string, requestId: string, treeSize: number) =>
  Effect.gen(function* () {
    const log = yield* ReceiptLog;
    yield* sizeWithin("treeSize", treeSize, yield* log.size);
    const leaf = (yield* log.receiptsOf(requestId)).filter((body) => body.account === account && body.leafIndex < treeSize).at(-1);
    if (leaf === undefined)
      return yield* new NotFound({ message: `no receipt for request ${requestId.slice(0, 64)} of this account in the first ${treeSize} leaves` });
    return { leafIndex: leaf.leafIndex, treeSize, hashes: (yield* log.inclusionProof(leaf.leafIndex, treeSize)).map(base64) };
  });

/** The proof that the tree of `to` leaves extends the tree of `from`. */
export const consistencyProofOf = (from: number, to: number) =>
  Effect.gen(function* () {
    const log = yield* ReceiptLog;
    yield* sizeWithin("to", to, yield* log.size);
    yield* sizeWithin("from", from, to);
    return { from, to, hashes: (yield* log.consistencyProof(from, to)).map(base64) };
  });

/**
 * An account's bill for a period: every receipt with its proof against one checkpoint, the totals,
 * and a consistency proof to that checkpoint from each tree size in `from` (checkpoints the
 * customer saved earlier; sizes not below the checkpoint's need none and are left out).
 */
export const statementOf = (account: string, period: string, from: ReadonlyArray<number> = []) =>
  Effect.gen(function* () {
    const log = yield* ReceiptLog;
    const checkpoint = yield* currentCheckpoint;
    const bodies = (yield* log.statementOf(account, period)).filter((body) => body.leafIndex < checkpoint.size);
    const receipts = yield* Effect.forEach(bodies, (body) =>
      Effect.gen(function* () {
        const proof = (yield* log.inclusionProof(body.leafIndex, checkpoint.size)).map(base64);
        return { receipt: yield* signReceipt(body), proof };
      }),
    );
    const consistency = yield* Effect.forEach(
      [...new Set(from)].filter((size) => size >= 1 && size < checkpoint.size),
      (size) => Effect.map(log.consistencyProof(size, checkpoint.size), (hashes) => ({ from: size, hashes: hashes.map(base64) })),
    );
    return { period, checkpoint: checkpoint.note, receipts, totals: billTotals(bodies), consistency };
  });

/**
 * The signed charge of a request whose units were just committed: the log is caught up with the
 * store here rather than waiting for its follower, so the response carries its receipt. A store
 * whose followers see a commit only once older transactions end (PostgreSQL) may need a few reads.
 */
export const chargeReceiptOf = (requestId: string) =>
  Effect.gen(function* () {
    const log = yield* ReceiptLog;
    const charge = Effect.gen(function* () {
      yield* catchUpFromStore(log);
      const found = (yield* log.receiptsOf(requestId)).find((body) => body.kind === "charge");
      return found === undefined ? yield* Effect.fail("not yet" as const) : found;
    });
    const body = yield* charge.pipe(Effect.retry({ times: 20, schedule: Schedule.spaced("50 millis") }));
    return yield* signReceipt(body);
  }).pipe(
    Effect.catchCause((cause) =>
      Effect.as(Effect.logWarning(`receipt of request ${requestId}: not in the receipts log yet; the response carries none`, cause), null),
    ),
  );
