/**
 * The quota ledger under contention: one account's ledger, many concurrent writers, each doing what a
 * request does to it (reserve a unit, then commit it) through the real path, handleCommand with its
 * optimistic-concurrency retries. On SQLite (the default, synchronous=NORMAL) and PostgreSQL in one
 * run. Reports appends/s (ratio: against SQLite with as many writers), how many appends lost a race,
 * and the latency the ledger adds to a request: reservation p50/p99 and reservation+commit p99 (ratio:
 * against one uncontended writer on the same store). Writers share one store instance (one service
 * process), or are spread over two instances on the same database (two processes, which race each
 * other). Each run starts a fresh ledger, which grows from 0 to 2 × reservations events during it.
 * Usage: npx tsx bench/quota-contention.ts [reservations per run, default 500]
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Context, Effect, Layer } from "effect";
import { postgresEventStoreLayer } from "../src/adapters/event-store/postgres-event-store.ts";
import { sqliteEventStoreLayer } from "../src/adapters/event-store/sqlite-event-store.ts";
import { handleCommand } from "../src/application/event-sourcing/command-handler.ts";
import { quotaLedgerStreamType } from "../src/application/event-sourcing/events/quota-events.ts";
import { inProcessStreamLocks, type StreamLocks } from "../src/application/event-sourcing/stream-locks.ts";
import { lruStreamStateCache, type StreamStateCache } from "../src/application/event-sourcing/stream-state-cache.ts";
import { quotaStream } from "../src/domain/quota-ledger.ts";
import { EventStore, type EventStoreShape } from "../src/ports/event-store.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../test/support/postgres.ts";

const reservations = Number(process.argv[2] ?? 500);
const byBench = { actor: { kind: "service", task: "quota-contention bench" } } as const;
const setups = [
  { writers: 1, instances: 1 },
  { writers: 8, instances: 1 },
  { writers: 32, instances: 1 },
  { writers: 32, instances: 2 },
] as const;
type Setup = (typeof setups)[number];
const label = (setup: Setup) => `${setup.writers}${setup.instances > 1 ? ` over ${setup.instances} instances` : ""}`;
const dir = mkdtempSync(join(tmpdir(), "its-bench-quota-"));
const schema = freshSchemaName("its_bench");

interface Run {
  readonly seconds: number;
  readonly appends: number;
  readonly conflicts: number;
  readonly failures: number;
  readonly reserveMs: ReadonlyArray<number>;
  readonly ledgerMs: ReadonlyArray<number>;
}

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/**
 * `writers` fibers, spread over the instances, share `reservations` requests on one fresh ledger;
 * every append that lost a race is counted. Each instance has its own state cache and stream locks,
 * as each service process has.
 */
const measure = (instances: ReadonlyArray<EventStoreShape>, writers: number): Effect.Effect<Run> =>
  Effect.gen(function* () {
    let conflicts = 0;
    const processes: Array<Context.Context<EventStore | StreamStateCache | StreamLocks>> = [];
    for (const store of instances) {
      const counting: EventStoreShape = {
        ...store,
        appendToStream: (...args) =>
          store.appendToStream(...args).pipe(Effect.tapError((error) => Effect.sync(() => (error._tag === "ConcurrencyConflict" ? conflicts++ : undefined)))),
      };
      processes.push(yield* Layer.build(Layer.mergeAll(Layer.succeed(EventStore)(counting), lruStreamStateCache(), inProcessStreamLocks)));
    }
    const accountId = `acc_bench${randomUUID().slice(0, 8)}`;
    const ledger = quotaStream(accountId, "2026-11");
    const reserveMs: Array<number> = [];
    const ledgerMs: Array<number> = [];
    let next = 0;
    let failures = 0;

    const request = (i: number) =>
      Effect.gen(function* () {
        const requestId = `req-${i}`;
        const started = performance.now();
        const now = new Date();
        yield* handleCommand(
          quotaLedgerStreamType,
          ledger,
          {
            type: "ReserveQuota",
            requestId,
            units: 1,
            accountId,
            keyId: `key-${i % 5}`,
            operation: "generate",
            period: "2026-11",
            // A limit that is never reached, so that every reservation counts the open ones as it would.
            limit: 1_000_000,
            expiresAt: new Date(now.getTime() + 5 * 60_000),
            now,
          },
          byBench,
        );
        const reserved = performance.now();
        yield* handleCommand(quotaLedgerStreamType, ledger, { type: "CommitQuota", requestId, now: new Date() }, byBench);
        reserveMs.push(reserved - started);
        ledgerMs.push(performance.now() - started);
      }).pipe(
        // After 100 lost races handleCommand gives up (503 to the client): counted, not fatal here.
        Effect.catchTag("DependencyUnavailable", () => Effect.sync(() => failures++)),
        Effect.orDie,
      );
    const writer = (services: Context.Context<EventStore | StreamStateCache | StreamLocks>) =>
      Effect.gen(function* () {
        while (next < reservations) yield* request(next++);
      }).pipe(Effect.provideContext(services));

    const started = performance.now();
    yield* Effect.all(
      Array.from({ length: writers }, (_, w) => writer(processes[w % processes.length]!)),
      { concurrency: "unbounded", discard: true },
    );
    const seconds = (performance.now() - started) / 1_000;
    const appends = (yield* instances[0]!.readStream(ledger).pipe(Effect.orDie)).length;
    return { seconds, appends, conflicts, failures, reserveMs, ledgerMs };
  }).pipe(Effect.scoped);

/** Each build of the layer is one more instance on the same database, as another process would open it. */
const measureStore = <E>(layer: Layer.Layer<EventStore, E>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const instances = [Context.get(yield* Layer.build(layer), EventStore), Context.get(yield* Layer.build(layer), EventStore)];
        yield* measure(instances, 4).pipe(Effect.asVoid); // warm-up: connections, statement caches, JIT
        const runs = new Map<Setup, Run>();
        for (const setup of setups) runs.set(setup, yield* measure(instances.slice(0, setup.instances), setup.writers));
        return runs;
      }),
    ),
  );

try {
  const stores = [
    { store: "sqlite", runs: await measureStore(sqliteEventStoreLayer({ path: join(dir, "events.sqlite"), synchronous: "normal" })) },
    { store: "postgresql", runs: await measureStore(postgresEventStoreLayer({ connectionString: postgresUrl, schema })) },
  ];
  const sqlite = stores[0]!.runs;
  console.log(`One account's quota ledger: ${reservations} requests per run (reserve, then commit) shared by N concurrent writers.\n`);
  console.log(
    "| store | writers | appends/s | vs sqlite | lost races per append | gave up | reserve p50 ms | reserve p99 ms | reserve+commit p99 ms | p99 vs 1 writer |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const { store, runs } of stores) {
    const single = runs.get(setups[0])!;
    for (const [setup, run] of runs) {
      const rate = run.appends / run.seconds;
      const sqliteRun = sqlite.get(setup)!;
      const sqliteRate = sqliteRun.appends / sqliteRun.seconds;
      console.log(
        `| ${store} | ${label(setup)} | ${Math.round(rate)} | ${(rate / sqliteRate).toFixed(2)}× | ${(run.conflicts / run.appends).toFixed(2)} | ${run.failures} | ` +
          `${percentile(run.reserveMs, 50).toFixed(1)} | ${percentile(run.reserveMs, 99).toFixed(1)} | ${percentile(run.ledgerMs, 99).toFixed(1)} | ` +
          `${(percentile(run.ledgerMs, 99) / percentile(single.ledgerMs, 99)).toFixed(1)}× |`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await dropSchemas([schema]);
}
