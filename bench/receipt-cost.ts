/**
 * What signed receipts cost, in one run:
 * 1. The receipt step of a charged request (the receipts log caught up with the store, the charge
 *    read and signed: chargeReceiptOf), after each request's quota events (reserve, commit) on the
 *    SQLite default, against the same requests without it; the added time per request against
 *    POST /generate's own engine work (bench/generate-engine.ts's in-process sharp baseline).
 * 2. The checkpoint, inclusion and consistency proofs of a log of 10⁶ leaves (p50, p99), as the
 *    routes run them (the HTTP layer adds what any GET adds).
 * Usage: node bench/receipt-cost.ts [requests, default 400] [leaves, default 1000000]
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Layer } from "effect";
import { ed25519NoteSignerLayer } from "../src/adapters/crypto/ed25519-note-signer.ts";
import { sqliteEventStoreLayer } from "../src/adapters/event-store/sqlite-event-store.ts";
import { sqliteReceiptLogLayer } from "../src/adapters/projections/sqlite-receipt-log.ts";
import { handleCommand } from "../src/application/event-sourcing/command-handler.ts";
import { quotaEventCodec, quotaLedgerStreamType } from "../src/application/event-sourcing/events/quota-events.ts";
import { inProcessStreamLocks } from "../src/application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache } from "../src/application/event-sourcing/stream-state-cache.ts";
import { chargeReceiptOf, consistencyProofOf, currentCheckpoint, inclusionProofOf } from "../src/application/receipts/receipts.ts";
import type { QuotaEvent } from "../src/domain/quota-ledger.ts";
import type { RecordedEvent } from "../src/ports/event-store.ts";
import { ReceiptLog } from "../src/ports/receipt-log.ts";
import { measureEngineBaseline } from "./generate-engine.ts";

const requests = Number(process.argv[2] ?? 400);
const leaves = Number(process.argv[3] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), "its-bench-receipts-"));
const ORIGIN = "bench.example/receipts";
const context = { actor: { kind: "api-key", keyId: "benchkey", accountId: "acc_bench" } as const, requestId: "bench" };
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const sortedMs = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b);

const services = (name: string) =>
  Layer.mergeAll(
    sqliteEventStoreLayer({ path: join(dir, `${name}-events.sqlite`) }),
    sqliteReceiptLogLayer({ path: join(dir, `${name}-receipts.sqlite`), origin: ORIGIN }),
    ed25519NoteSignerLayer(ORIGIN, () => Buffer.alloc(32, 9)),
    lruStreamStateCache(),
    inProcessStreamLocks,
  );

/** A request's quota events (reserve, commit), then its receipt or not; alternating rounds; the time per request of each. */
const receiptStep = Effect.gen(function* () {
  const ledger = `quota-acc_bench-2026-11`;
  const charge = (withReceipt: boolean) =>
    Effect.gen(function* () {
      const requestId = randomUUID();
      const now = new Date();
      const started = performance.now();
      yield* handleCommand(
        quotaLedgerStreamType,
        ledger,
        {
          type: "ReserveQuota",
          requestId,
          accountId: "acc_bench",
          keyId: "benchkey",
          operation: "generate",
          period: "2026-11",
          units: 1,
          limit: null,
          expiresAt: new Date(now.getTime() + 300_000),
          now,
        },
        context,
      );
      yield* handleCommand(quotaLedgerStreamType, ledger, { type: "CommitQuota", requestId, now }, context);
      if (withReceipt && (yield* chargeReceiptOf(requestId)) === null) throw new Error("no receipt");
      return performance.now() - started;
    });
  const times = { with: [] as Array<number>, without: [] as Array<number> };
  for (let round = 0; round < 8; round += 1) {
    for (let i = 0; i < requests / 8; i += 1) times.without.push(yield* charge(false));
    for (let i = 0; i < requests / 8; i += 1) times.with.push(yield* charge(true));
  }
  return times;
}).pipe(Effect.provide(services("step")), Effect.scoped);

/** A log of `leaves` leaves (two quota events each, applied as the store would hand them over), then its routes' work timed. */
const atScale = Effect.gen(function* () {
  const log = yield* ReceiptLog;
  let position = 0;
  const event = (quotaEvent: QuotaEvent): RecordedEvent => {
    const { type, data, metadata = {} } = quotaEventCodec.encode(quotaEvent, {});
    position += 1;
    return {
      eventId: randomUUID(),
      streamName: "quota-acc_bench-2026-11",
      streamRevision: position,
      globalPosition: position,
      type,
      data,
      metadata,
      recordedAt: "",
    };
  };
  const built = performance.now();
  for (let done = 0; done < leaves; done += 5000) {
    const page: Array<RecordedEvent> = [];
    for (let i = done; i < Math.min(leaves, done + 5000); i += 1) {
      const requestId = `r${i}`;
      const at = "2026-11-26T10:00:00.000Z";
      page.push(
        event({
          type: "QuotaReserved",
          data: { requestId, keyId: "k", operation: "generate", accountId: "acc_bench", period: "2026-11", units: 1, limit: null, expiresAt: at, at },
        }),
      );
      page.push(event({ type: "QuotaCommitted", data: { requestId, at } }));
    }
    yield* log.apply(page);
  }
  const buildSeconds = (performance.now() - built) / 1000;
  const timed = function* <A, E, R>(effect: (i: number) => Effect.Effect<A, E, R>) {
    const ms: Array<number> = [];
    for (let i = 0; i < 1000; i += 1) {
      const started = performance.now();
      yield* effect(i);
      ms.push(performance.now() - started);
    }
    const sorted = sortedMs(ms);
    return { p50: Number(percentile(sorted, 0.5).toFixed(3)), p99: Number(percentile(sorted, 0.99).toFixed(3)) };
  };
  const size = yield* log.size;
  return {
    leaves: size,
    buildSeconds: Number(buildSeconds.toFixed(1)),
    checkpointMs: yield* timed(() => currentCheckpoint),
    inclusionMs: yield* timed((i) => inclusionProofOf("acc_bench", `r${(i * 7919) % size}`, size)),
    consistencyMs: yield* timed((i) => consistencyProofOf(1 + ((i * 104_729) % (size - 1)), size)),
  };
}).pipe(
  Effect.provide(
    Layer.merge(
      sqliteReceiptLogLayer({ path: join(dir, "scale-receipts.sqlite"), origin: ORIGIN }),
      ed25519NoteSignerLayer(ORIGIN, () => Buffer.alloc(32, 9)),
    ),
  ),
  Effect.scoped,
);

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, v) => sum + v, 0) / values.length;
try {
  const load = loadavg()[0]!.toFixed(1);
  const step = await Effect.runPromise(receiptStep);
  const engine = await measureEngineBaseline({ durationMs: 8000 });
  const engineMsPerRequest = 1000 / engine.perSecond;
  const addedMs = mean(step.with) - mean(step.without);
  const scale = await Effect.runPromise(atScale);
  console.log(
    JSON.stringify(
      {
        loadAverageAtStart: load,
        receiptStep: {
          requests,
          quotaEventsMs: Number(mean(step.without).toFixed(3)),
          withReceiptMs: Number(mean(step.with).toFixed(3)),
          addedMsPerRequest: Number(addedMs.toFixed(3)),
          ratio: Number((mean(step.with) / mean(step.without)).toFixed(2)),
        },
        generateEngineMsPerRequest: Number(engineMsPerRequest.toFixed(1)),
        addedShareOfEngineTime: `${((addedMs / engineMsPerRequest) * 100).toFixed(2)} %`,
        atScale: scale,
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
