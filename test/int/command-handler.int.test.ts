import { randomUUID } from "node:crypto";
import { Context, Effect, Layer, type Scope } from "effect";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresEventStoreLayer } from "../../src/adapters/event-store/postgres-event-store.ts";
import { handleCommand, loadState } from "../../src/application/command-handler.ts";
import { quotaLedgerDecider, type QuotaCommand } from "../../src/domain/quota-ledger.ts";
import { EventStore, type EventStoreShape } from "../../src/ports/event-store.ts";

/**
 * handleCommand on a real, shared PostgreSQL store; each store instance stands for one process.
 * What it remembers per process must never hide another process's events, and its own commands on
 * one stream must take turns rather than lose races.
 */
const postgresUrl = process.env["POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const schema = `its_test_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
afterAll(async () => {
  const admin = new Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

interface Observed {
  readonly store: EventStoreShape;
  readonly conflicts: () => number;
  readonly reads: Array<number>;
}

/** One "process": its own pool on the shared schema, counting lost races and the revisions it reads from. */
const instance = (): Effect.Effect<Observed, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const inner = Context.get(yield* Layer.build(postgresEventStoreLayer({ connectionString: postgresUrl, schema, poolSize: 4 })), EventStore);
    let conflicts = 0;
    const reads: Array<number> = [];
    const store: EventStoreShape = {
      ...inner,
      appendToStream: (...args) =>
        inner.appendToStream(...args).pipe(Effect.tapError((e) => Effect.sync(() => (e._tag === "ConcurrencyConflict" ? conflicts++ : undefined)))),
      readStream: (name, options) => Effect.sync(() => reads.push(options?.fromRevision ?? 0)).pipe(Effect.andThen(inner.readStream(name, options))),
    };
    return { store, conflicts: () => conflicts, reads };
  });

const reserve = (ledger: string, limit: number): QuotaCommand => {
  const now = new Date();
  return {
    type: "ReserveQuota",
    requestId: randomUUID(),
    accountId: "acc_test",
    keyId: "key",
    operation: "generate",
    period: "2026-11",
    limit,
    expiresAt: new Date(now.getTime() + 60_000),
    now,
  };
};
const granted = (events: ReadonlyArray<{ type: string }>) => events.some((e) => e.type === "QuotaReserved");
const on = <A, E>(observed: Observed, effect: Effect.Effect<A, E, EventStore>) => Effect.provideService(effect, EventStore, observed.store);
const run = <A>(body: Effect.Effect<A, unknown, Scope.Scope>) => Effect.runPromise(Effect.scoped(body));

describe("handleCommand", () => {
  it("decides on what another process appended after this one last loaded the stream", () =>
    run(
      Effect.gen(function* () {
        const [a, b] = [yield* instance(), yield* instance()];
        const ledger = `quota-${randomUUID()}`;
        expect(granted((yield* on(a, handleCommand(quotaLedgerDecider, ledger, reserve(ledger, 2)))).events)).toBe(true);
        expect(granted((yield* on(b, handleCommand(quotaLedgerDecider, ledger, reserve(ledger, 2)))).events)).toBe(true);
        // a remembers one reservation; the store holds two, so the limit of 2 is reached.
        expect(granted((yield* on(a, handleCommand(quotaLedgerDecider, ledger, reserve(ledger, 2)))).events)).toBe(false);
        expect((yield* on(a, loadState(quotaLedgerDecider, ledger))).state.reservations.size).toBe(2);
      }),
    ));

  it("reads only the events appended since it last loaded the stream", () =>
    run(
      Effect.gen(function* () {
        const observed = yield* instance();
        const ledger = `quota-${randomUUID()}`;
        for (let i = 0; i < 5; i++) yield* on(observed, handleCommand(quotaLedgerDecider, ledger, reserve(ledger, 100)));
        const loaded = yield* on(observed, loadState(quotaLedgerDecider, ledger));
        expect(loaded.revision).toBe(4);
        expect(observed.reads).toEqual([0, 1, 2, 3, 4, 5]);
      }),
    ));

  it("lets one process's concurrent commands on one stream take turns, without lost races", () =>
    run(
      Effect.gen(function* () {
        const observed = yield* instance();
        const ledger = `quota-${randomUUID()}`;
        const outcomes = yield* on(
          observed,
          Effect.all(
            Array.from({ length: 40 }, () => handleCommand(quotaLedgerDecider, ledger, reserve(ledger, 30))),
            { concurrency: "unbounded" },
          ),
        );
        expect(observed.conflicts()).toBe(0);
        expect(outcomes.filter((o) => granted(o.events))).toHaveLength(30);
        expect((yield* observed.store.readStream(ledger)).map((e) => e.streamRevision)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      }),
    ));

  it("keeps the limit exact when two processes race on one ledger", () =>
    run(
      Effect.gen(function* () {
        const processes = [yield* instance(), yield* instance()];
        const ledger = `quota-${randomUUID()}`;
        const outcomes = yield* Effect.all(
          processes.flatMap((p) => Array.from({ length: 20 }, () => on(p, handleCommand(quotaLedgerDecider, ledger, reserve(ledger, 25))))),
          { concurrency: "unbounded" },
        );
        expect(outcomes.filter((o) => granted(o.events))).toHaveLength(25);
        const events = yield* processes[0]!.store.readStream(ledger);
        expect(events.filter((e) => e.type === "QuotaReserved")).toHaveLength(25);
        expect(events.filter((e) => e.type === "QuotaReservationRefused")).toHaveLength(15);
      }),
    ));
});
