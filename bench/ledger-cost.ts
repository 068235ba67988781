/**
 * What the tamper-evident ledger costs, in one run:
 * 1. The event work of one /generate request (reserve, request, commit, complete: four commands)
 *    through handleCommand on the SQLite default, as today's code did it (events cast, not decoded,
 *    not encoded, not chained) and as it is now (decoded and encoded through the stream's Schema,
 *    every append chained). The two alternate over several rounds; the ratio is now / today.
 *    Also a cold load (no cached state, as after a restart) of a ledger of 1,000 events: cast vs decoded.
 * 2. That added time against POST /generate's own engine work (the in-process sharp baseline of
 *    bench/generate-engine.ts at full throughput): the share of a request's time it would add.
 * 3. `itsctl audit --verify-only`'s walk (verifyChains) over a store of chained events, in events/s,
 *    against a plain read of the same store.
 * Usage: node bench/ledger-cost.ts [requests per round, default 200] [events to verify, default 20000]
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Context, Effect, Layer, Result } from "effect";
import { makeNodeChainCrypto } from "../src/adapters/crypto/node-chain-crypto.ts";
import { sqliteEventStoreLayer } from "../src/adapters/event-store/sqlite-event-store.ts";
import { handleCommand, loadState, type StreamType } from "../src/application/event-sourcing/command-handler.ts";
import type { EventCodec } from "../src/application/event-sourcing/events/event-codec.ts";
import { quotaLedgerStreamType } from "../src/application/event-sourcing/events/quota-events.ts";
import { transformationStreamType } from "../src/application/event-sourcing/events/transformation-events.ts";
import { inProcessStreamLocks } from "../src/application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache } from "../src/application/event-sourcing/stream-state-cache.ts";
import { chainedEventStore } from "../src/application/hash-chains/chained-event-store.ts";
import { verifyChains } from "../src/application/hash-chains/verify-chains.ts";
import { ChainCrypto } from "../src/ports/chain-crypto.ts";
import { systemClock } from "../src/ports/clock.ts";
import { EventStore, type EventStoreShape, type JsonObject, NO_STREAM, type RecordedEvent } from "../src/ports/event-store.ts";
import { measureEngineBaseline } from "./generate-engine.ts";

const requests = Number(process.argv[2] ?? 200);
const verifyEvents = Number(process.argv[3] ?? 20_000);
const ROUNDS = 6;
const dir = mkdtempSync(join(tmpdir(), "its-bench-ledger-"));
const crypto = makeNodeChainCrypto({ eventChainKey: Buffer.alloc(32, 1), ledgerSealSeed: Buffer.alloc(32, 2) });
const actor = { kind: "api-key", keyId: "benchkey", accountId: "acc_bench" } as const;

/** Today's read and write path: the stored JSON taken as the event, the event's data stored as it is. */
const castCodec = <Event extends { readonly type: string; readonly data: object }>(): Pick<EventCodec<Event>, "decodeResult" | "decode" | "encode"> => ({
  decodeResult: (recorded) => Result.succeed({ type: recorded.type, data: recorded.data } as unknown as Event),
  decode: (recorded) => ({ type: recorded.type, data: recorded.data }) as unknown as Event,
  encode: (event, metadata) => ({ type: event.type, data: event.data as JsonObject, metadata }),
});
const asToday = <C, E extends { readonly type: string; readonly data: object }, S>(streamType: StreamType<C, E, S>): StreamType<C, E, S> => ({
  decider: streamType.decider,
  codec: { ...streamType.codec, ...castCodec<E>() },
});

const openStore = (file: string) => Effect.map(Layer.build(sqliteEventStoreLayer({ path: join(dir, file) })), (context) => Context.get(context, EventStore));

/** One /generate request's four commands, `count` times, sequentially; returns seconds. */
const commandPath = (store: EventStoreShape, today: boolean, count: number) =>
  Effect.gen(function* () {
    const services = yield* Layer.build(Layer.mergeAll(Layer.succeed(EventStore)(store), lruStreamStateCache(), inProcessStreamLocks));
    const quota = today ? asToday(quotaLedgerStreamType) : quotaLedgerStreamType;
    const transformation = today ? asToday(transformationStreamType) : transformationStreamType;
    const ledger = `quota-acc_bench${randomUUID().slice(0, 8)}-2026-11`;
    const one = Effect.gen(function* () {
      const requestId = randomUUID();
      const now = new Date();
      const context = { actor, requestId };
      const request = `transformation-${requestId}`;
      const base = { requestId, accountId: "acc_bench", keyId: "benchkey", operation: "generate" as const };
      yield* handleCommand(
        quota,
        ledger,
        { ...base, type: "ReserveQuota", period: "2026-11", units: 1, limit: null, expiresAt: new Date(now.getTime() + 300_000), now },
        context,
      );
      yield* handleCommand(
        transformation,
        request,
        { ...base, type: "RequestTransformation", parameters: { template: "instagram-square", templateType: "social" }, now },
        context,
      );
      yield* handleCommand(quota, ledger, { type: "CommitQuota", requestId, now }, context);
      yield* handleCommand(
        transformation,
        request,
        { type: "CompleteTransformation", processingTimeMs: 40, output: { format: "jpeg", width: "1080", height: "1080" }, now },
        context,
      );
    });
    for (let i = 0; i < 30; i++) yield* Effect.provideContext(one, services);
    const started = performance.now();
    for (let i = 0; i < count; i++) yield* Effect.provideContext(one, services);
    return (performance.now() - started) / 1_000;
  });

const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}`;

try {
  console.log(`Started with ${load()} (${availableParallelism()} cores)\n`);
  const timings = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const bare = yield* openStore("today.sqlite");
        const chained = chainedEventStore(yield* openStore("now.sqlite"), { mac: crypto.mac, newEventId: randomUUID });
        const rounds: Array<{ today: number; now: number }> = [];
        for (let round = 0; round < ROUNDS; round++) {
          rounds.push({ today: yield* commandPath(bare, true, requests), now: yield* commandPath(chained, false, requests) });
        }
        // The ledgers written above hold 2 events per request; a fresh cache per load makes it cold.
        const ledger = (yield* chained.readAll({ after: 0, limit: 1 }))[0]!.streamName;
        const coldLoad = <C, E extends { readonly type: string; readonly data: object }, S>(streamType: StreamType<C, E, S>) =>
          Effect.gen(function* () {
            const started = performance.now();
            for (let i = 0; i < 20; i++) {
              const services = yield* Layer.build(Layer.mergeAll(Layer.succeed(EventStore)(chained), lruStreamStateCache()));
              yield* Effect.provideContext(loadState(streamType, ledger), services);
            }
            return (performance.now() - started) / 20;
          });
        const events = (yield* chained.readStream(ledger)).length;
        const loads: Array<{ today: number; now: number }> = [];
        for (let round = 0; round < ROUNDS; round++) {
          loads.push({ today: yield* coldLoad(asToday(quotaLedgerStreamType)), now: yield* coldLoad(quotaLedgerStreamType) });
        }
        return { rounds, loads, events };
      }),
    ),
  );
  const total = (side: "today" | "now") => timings.rounds.reduce((sum, round) => sum + round[side], 0);
  const loadMs = (side: "today" | "now") => timings.loads.reduce((sum, round) => sum + round[side], 0) / ROUNDS;
  const perRequestUs = (side: "today" | "now") => (total(side) * 1e6) / (ROUNDS * requests);
  const addedMs = (perRequestUs("now") - perRequestUs("today")) / 1000;
  console.log(`1. The event work of one /generate request (4 commands), SQLite default, ${ROUNDS} alternating rounds of ${requests} requests`);
  console.log(`| path | µs per request |`);
  console.log(`|---|---:|`);
  console.log(`| today: cast, unchained | ${perRequestUs("today").toFixed(0)} |`);
  console.log(`| now: decoded, encoded, chained | ${perRequestUs("now").toFixed(0)} |`);
  console.log(
    `ratio now / today: ${(perRequestUs("now") / perRequestUs("today")).toFixed(3)}; added per request: ${(addedMs * 1000).toFixed(0)} µs (${load()})`,
  );
  console.log(
    `cold load of a ${timings.events}-event ledger: cast ${loadMs("today").toFixed(2)} ms, decoded ${loadMs("now").toFixed(2)} ms, ratio ${(loadMs("now") / loadMs("today")).toFixed(3)} (${load()})\n`,
  );

  const engine = await measureEngineBaseline({ durationMs: 5_000 });
  const requestMs = 1000 / engine.perSecond;
  console.log(
    `2. POST /generate's engine work alone (${engine.template}, ${engine.input.width}×${engine.input.height} JPEG, in-process): ${engine.perSecond} requests/s, ${requestMs.toFixed(1)} ms of the machine per request`,
  );
  console.log(`   the ledger adds ${addedMs.toFixed(3)} ms per request: ${((addedMs / requestMs) * 100).toFixed(2)} % of it (goal ≤ 3 %) (${load()})\n`);

  const walk = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const bare = yield* openStore("verify.sqlite");
        const store = chainedEventStore(bare, { mac: crypto.mac, newEventId: randomUUID });
        const streams = Math.max(1, Math.round(verifyEvents / 50));
        const revisions = new Array<number>(streams).fill(NO_STREAM);
        for (let i = 0; i < verifyEvents; i += 10) {
          const stream = (i / 10) % streams;
          const batch = Array.from({ length: 10 }, () => ({
            type: "QuotaCommitted",
            data: { requestId: randomUUID(), at: new Date().toISOString() },
            metadata: { actor, schemaVersion: 1 },
          }));
          revisions[stream] = (yield* store.appendToStream(`quota-acc_${stream}-2026-11`, batch, {
            expectedRevision: revisions[stream]!,
          })).nextExpectedRevision;
        }
        let read = 0;
        const readStarted = performance.now();
        for (let after = 0; ;) {
          const page: ReadonlyArray<RecordedEvent> = yield* bare.readAll({ after, limit: 1_000 });
          if (page.length === 0) break;
          read += page.length;
          after = page.at(-1)!.globalPosition;
        }
        const readSeconds = (performance.now() - readStarted) / 1000;
        const started = performance.now();
        const verification = yield* verifyChains({ intervalSeconds: 3600 }).pipe(
          Effect.provideService(EventStore, bare),
          Effect.provideService(ChainCrypto, crypto),
          Effect.provide(systemClock),
        );
        const verifySeconds = (performance.now() - started) / 1000;
        return { read, readSeconds, verification, verifySeconds, streams };
      }),
    ),
  );
  if (!walk.verification.ok) throw new Error(`the bench store did not verify: ${JSON.stringify(walk.verification.damage)}`);
  console.log(`3. itsctl audit --verify-only's walk over ${walk.verification.events} chained events in ${walk.streams} streams (SQLite)`);
  console.log(`| walk | seconds | events/s |`);
  console.log(`|---|---:|---:|`);
  console.log(`| read only (readAll) | ${walk.readSeconds.toFixed(3)} | ${Math.round(walk.read / walk.readSeconds)} |`);
  console.log(`| verify (every mac, every link) | ${walk.verifySeconds.toFixed(3)} | ${Math.round(walk.verification.events / walk.verifySeconds)} |`);
  console.log(`(${load()})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
