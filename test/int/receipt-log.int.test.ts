import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Layer, Stream } from "effect";
import { describe, expect, it } from "vitest";
import { ed25519NoteSignerLayer, makeEd25519NoteSigner } from "../../src/adapters/crypto/ed25519-note-signer.ts";
import { inMemoryEventStoreLayer } from "../../src/adapters/event-store/in-memory-event-store.ts";
import { sqliteReceiptLogLayer } from "../../src/adapters/projections/sqlite-receipt-log.ts";
import { quotaEventCodec } from "../../src/application/event-sourcing/events/quota-events.ts";
import { consistencyProofOf, currentCheckpoint, inclusionProofOf, receiptsOf, statementOf } from "../../src/application/receipts/receipts.ts";
import type { Feature } from "../../src/domain/plan.ts";
import type { QuotaEvent } from "../../src/domain/quota-ledger.ts";
import type { EventStore } from "../../src/ports/event-store.ts";
import { type RecordedEvent } from "../../src/ports/event-store.ts";
import { NoteSigner } from "../../src/ports/note-signer.ts";
import { ReceiptLog } from "../../src/ports/receipt-log.ts";
import { leafHash, verifyConsistency, verifyInclusion } from "../../verifier/merkle-proofs.mjs";
import { canonicalize, checkStatement, receiptSigned } from "../../verifier/receipts.mjs";
import { openCheckpoint, parseVerifierKey, parseVerifierKeys } from "../../verifier/signed-note.mjs";

/**
 * The receipts log on a real SQLite file, fed quota events as the store records them, read through
 * the use cases customers reach, and checked with the customer's own verifier (verifier/).
 */
const ORIGIN = "receipts.example.test/log";
const VERIFY_BILL = join(import.meta.dirname, "../../verifier/verify-bill.mjs");
const seed = Buffer.alloc(32, 7);

/** Quota ledger events as the store would record them, with increasing global positions. */
const history = () => {
  let position = 0;
  const events: Array<RecordedEvent> = [];
  const event = (streamName: string, quotaEvent: QuotaEvent) => {
    position += 1;
    const { type, data, metadata = {} } = quotaEventCodec.encode(quotaEvent, {});
    events.push({
      eventId: randomUUID(),
      streamName,
      streamRevision: 0,
      globalPosition: position,
      type,
      data,
      metadata,
      recordedAt: "2026-11-26T10:00:00.000Z",
    });
  };
  const at = (second: number) => `2026-11-26T10:00:${String(second % 60).padStart(2, "0")}.000Z`;
  return {
    events,
    request: (account: string, outcome: "commit" | "release" | "refused", units = 1, operation: Feature = "generate") => {
      const requestId = `req_${randomUUID()}`;
      const stream = `quota-${account}-2026-11`;
      const base = { requestId, keyId: "key_1", operation, accountId: account, period: "2026-11", units, at: at(position) };
      if (outcome === "refused") event(stream, { type: "QuotaReservationRefused", data: { ...base, limit: 50, used: 50, reserved: 0 } });
      else {
        event(stream, { type: "QuotaReserved", data: { ...base, limit: 500, expiresAt: "2026-11-26T10:05:00.000Z" } });
        if (outcome === "commit") event(stream, { type: "QuotaCommitted", data: { requestId, at: at(position) } });
        else event(stream, { type: "QuotaReleased", data: { requestId, reason: "InvalidImage", at: at(position) } });
      }
      return requestId;
    },
  };
};

// The tests apply every event to the log themselves: the store a receipt lookup catches up from holds none after them.
const noLaterEvents = inMemoryEventStoreLayer();
const layerFor = (path: string) =>
  Layer.mergeAll(
    sqliteReceiptLogLayer({ path, origin: ORIGIN }),
    ed25519NoteSignerLayer(ORIGIN, () => seed),
    noLaterEvents,
  );
const inLog = <A, E>(path: string, body: Effect.Effect<A, E, ReceiptLog | NoteSigner | EventStore>) =>
  Effect.runPromise(Effect.scoped(Effect.provide(body, layerFor(path))));
const applyAll = (events: ReadonlyArray<RecordedEvent>) =>
  Effect.gen(function* () {
    yield* (yield* ReceiptLog).apply(events);
  });
const verifierKey = () =>
  Effect.runPromise(
    Effect.gen(function* () {
      return parseVerifierKey((yield* NoteSigner).verifierKey);
    }).pipe(Effect.provide(ed25519NoteSignerLayer(ORIGIN, () => seed))),
  );

describe("the receipts log", () => {
  it("has the customer's verifier read a key whose base64 holds a '+', and check notes with it", () => {
    // The first seed whose key's base64 holds a '+' (the line then has more than two).
    const signer = Array.from({ length: 64 }, (_, i) => makeEd25519NoteSigner(ORIGIN, Buffer.alloc(32, i))).find((s) => s.verifierKey.split("+").length > 3);
    const key = parseVerifierKey(`${signer!.verifierKey}\n`);
    expect(key.keyId.toString("hex")).toBe(signer!.keyId);
    const root = Buffer.alloc(32, 1).toString("base64");
    expect(openCheckpoint(signer!.signNote(`${ORIGIN}\n1\n${root}\n`), key)).toMatchObject({ origin: ORIGIN, size: 1 });
  });

  it("logs each commit as a charge and each release as a release, in store order, signed and proved against its checkpoint", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "its-receipts-")), "receipts.sqlite");
    const h = history();
    const charged = h.request("acc_a", "commit", 3, "ocr");
    const released = h.request("acc_a", "release");
    h.request("acc_b", "refused");
    const other = h.request("acc_b", "commit");
    const key = await verifierKey();
    const result = await inLog(
      path,
      Effect.gen(function* () {
        yield* applyAll(h.events);
        return {
          charge: yield* receiptsOf("acc_a", charged),
          release: yield* receiptsOf("acc_a", released),
          otherAccount: yield* Effect.flip(receiptsOf("acc_a", other)),
          checkpoint: yield* currentCheckpoint,
          proof: yield* inclusionProofOf("acc_a", charged, 3),
        };
      }),
    );
    expect(result.charge.map((r) => [r.body.kind, r.body.units, r.body.operation, r.body.leafIndex, r.body.logOrigin])).toEqual([
      ["charge", 3, "ocr", 0, ORIGIN],
    ]);
    expect(result.release.map((r) => [r.body.kind, r.body.leafIndex])).toEqual([["release", 1]]);
    expect(result.otherAccount._tag).toBe("NotFound");
    expect(result.charge.every((receipt) => receiptSigned(receipt, key))).toBe(true);
    expect(receiptSigned({ ...result.charge[0]!, body: { ...result.charge[0]!.body, units: 2 } }, key)).toBe(false);
    const head = openCheckpoint(result.checkpoint.note, key);
    expect(head).toMatchObject({ origin: ORIGIN, size: 3 });
    const leaf = leafHash(Buffer.from(canonicalize(result.charge[0]!.body)));
    expect(verifyInclusion({ index: 0, size: 3, leaf, proof: result.proof.hashes.map((h) => Buffer.from(h, "base64")), root: head.root })).toBe(true);
  });

  it("gives a statement whose receipts, totals and saved checkpoints the customer's verifier accepts; another process sees the same log", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "its-receipts-")), "receipts.sqlite");
    const h = history();
    for (let i = 0; i < 40; i += 1) h.request(i % 3 === 0 ? "acc_a" : "acc_b", i % 5 === 0 ? "release" : "commit", 1 + (i % 2));
    const firstHalf = h.events.slice(0, 40);
    const key = await verifierKey();
    const saved = await inLog(path, Effect.andThen(applyAll(firstHalf), currentCheckpoint));
    const { statement, again } = await inLog(
      path,
      Effect.gen(function* () {
        yield* applyAll(h.events);
        const savedSize = openCheckpoint(saved.note, key).size;
        const statement = yield* statementOf("acc_a", "2026-11");
        const consistency = yield* consistencyProofOf(savedSize, openCheckpoint(statement.checkpoint, key).size);
        return { statement: { ...statement, consistency: [{ from: savedSize, hashes: consistency.hashes }] }, again: yield* currentCheckpoint };
      }),
    );
    expect(statement.receipts.length).toBeGreaterThan(10);
    expect(statement.totals.units).toBe(statement.receipts.filter((r) => r.receipt.body.kind === "charge").reduce((sum, r) => sum + r.receipt.body.units, 0));
    expect(checkStatement({ statement, verifierKey: key, saved: [saved.note] })).toEqual([]);
    expect(again.note).toBe(statement.checkpoint);
    // Another process on the same file, as itsctl or a second server would open it.
    const other = await inLog(path, currentCheckpoint);
    expect(other.note).toBe(statement.checkpoint);
    const forged = { ...statement, totals: { ...statement.totals, units: statement.totals.units + 1 } };
    expect(checkStatement({ statement: forged, verifierKey: key, saved: [saved.note] })).toEqual([expect.stringMatching(/^totals: units/)]);
  });

  it("rebuilt from an edited store, gives another root, and no proof makes it consistent with a checkpoint saved before", async () => {
    const h = history();
    for (let i = 0; i < 12; i += 1) h.request("acc_a", "commit");
    const key = await verifierKey();
    const dir = mkdtempSync(join(tmpdir(), "its-receipts-"));
    const saved = await inLog(join(dir, "a.sqlite"), Effect.andThen(applyAll(h.events), currentCheckpoint));
    const edits = {
      "a changed charge": h.events.map((e, i) => (i === 4 ? { ...e, data: { ...e.data, units: 2 } } : e)),
      "a deleted charge": h.events.filter((_, i) => i !== 5),
      "a re-ordered pair": h.events.map((e, i) => (i === 7 ? h.events[9]! : i === 9 ? h.events[7]! : e)).map((e, i) => ({ ...e, globalPosition: i + 1 })),
    };
    for (const [name, events] of Object.entries(edits)) {
      const rebuilt = await inLog(
        join(dir, "a.sqlite"),
        Effect.gen(function* () {
          yield* (yield* ReceiptLog).rebuild(Stream.fromIterable(events));
          const checkpoint = yield* currentCheckpoint;
          const size = openCheckpoint(checkpoint.note, key).size;
          const from = openCheckpoint(saved.note, key).size;
          return { checkpoint, proof: from <= size ? (yield* consistencyProofOf(from, size)).hashes : [] };
        }),
      );
      const before = openCheckpoint(saved.note, key);
      const after = openCheckpoint(rebuilt.checkpoint.note, key);
      expect(Buffer.from(after.root).equals(Buffer.from(before.root)), name).toBe(false);
      const consistent = verifyConsistency({
        size1: before.size,
        size2: after.size,
        root1: before.root,
        root2: after.root,
        proof: rebuilt.proof.map((p) => Buffer.from(p, "base64")),
      });
      expect(consistent, name).toBe(false);
    }
  });

  it("has verify-bill exit 1 naming a kept receipt that a log rewritten without it contradicts, where the statement alone passes", async () => {
    const h = history();
    const requests = Array.from({ length: 6 }, () => h.request("acc_a", "commit"));
    const dir = mkdtempSync(join(tmpdir(), "its-receipts-"));
    const signer = makeEd25519NoteSigner(ORIGIN, seed);
    const [kept] = await inLog(join(dir, "a.sqlite"), Effect.andThen(applyAll(h.events), receiptsOf("acc_a", requests[2]!)));
    // The third request's charge deleted from the store, and the log made again from it: a customer with no saved checkpoint.
    const rewritten = h.events.filter((event) => !(event.type === "QuotaCommitted" && event.data["requestId"] === requests[2]));
    const statement = await inLog(
      join(dir, "a.sqlite"),
      Effect.gen(function* () {
        yield* (yield* ReceiptLog).rebuild(Stream.fromIterable(rewritten));
        return yield* statementOf("acc_a", "2026-11");
      }),
    );
    const key = parseVerifierKey(signer.verifierKey);
    expect(checkStatement({ statement, verifierKey: key })).toEqual([]);
    const files = { key: join(dir, "key.txt"), statement: join(dir, "statement.json"), receipt: join(dir, "kept-receipt.json") };
    writeFileSync(files.key, `${signer.verifierKey}\n`);
    writeFileSync(files.statement, JSON.stringify({ success: true, data: statement }));
    writeFileSync(files.receipt, JSON.stringify({ success: true, data: { requestId: requests[2], receipt: kept } }));
    const verifyBill = (...extra: Array<string>) =>
      spawnSync(process.execPath, [VERIFY_BILL, "--key", files.key, "--statement", files.statement, ...extra], { encoding: "utf8" });
    expect(verifyBill().status).toBe(0);
    const refused = verifyBill("--receipt", files.receipt);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(`FAIL kept receipt ${files.receipt} (charge of ${requests[2]}, leaf 2): the statement holds another receipt there`);
  });
});

describe("the receipts log's key, rotated", () => {
  it("publishes every earlier generation's key after the current one; receipts of each generation and the new checkpoints verify", async () => {
    const seedOf = (generation: number) => Buffer.alloc(32, generation);
    const path = join(mkdtempSync(join(tmpdir(), "its-receipts-")), "receipts.sqlite");
    const h = history();
    const first = h.request("acc_a", "commit");
    const signed = (generation: number) =>
      Effect.runPromise(
        Effect.scoped(
          Effect.provide(
            Effect.gen(function* () {
              yield* applyAll(h.events);
              const signer = yield* NoteSigner;
              return {
                receipts: yield* receiptsOf("acc_a", first),
                checkpoint: yield* currentCheckpoint,
                keys: [signer.verifierKey, ...signer.earlierVerifierKeys],
              };
            }),
            Layer.mergeAll(sqliteReceiptLogLayer({ path, origin: ORIGIN }), ed25519NoteSignerLayer(ORIGIN, seedOf, generation), noLaterEvents),
          ),
        ),
      );
    const before = await signed(1);
    const after = await signed(3);
    expect(after.keys).toHaveLength(3);
    expect(after.keys.at(-1)).toBe(before.keys[0]);
    const published = parseVerifierKeys(after.keys.join("\n"));
    expect(receiptSigned(before.receipts[0]!, published)).toBe(true);
    expect(receiptSigned(after.receipts[0]!, published)).toBe(true);
    expect(after.receipts[0]!.keyId).not.toBe(before.receipts[0]!.keyId);
    expect(openCheckpoint(after.checkpoint.note, published).size).toBe(1);
    expect(openCheckpoint(before.checkpoint.note, published).size).toBe(1);
    // Only the generation that signed it opens an old note: a key list without it is refused.
    expect(() => openCheckpoint(before.checkpoint.note, published.slice(0, 2))).toThrow(/no signature/);
  });
});
