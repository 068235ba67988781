import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import { Effect } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { makeSqliteEventStore, openSqliteEventDatabase } from "../../src/adapters/event-store/sqlite-event-store.ts";

/**
 * The SQLite store answers a read past a stream's head from memory (sqlite-stream-heads.ts): these
 * show when it may, with two connections on one file, as two processes (or the CLI) would have.
 */
const dir = mkdtempSync(join(tmpdir(), "its-stream-heads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A native object's property as the object itself would use it: its methods bound to it. */
const own = (target: object, property: string | symbol): unknown => {
  const value = Reflect.get(target, property, target) as unknown;
  return typeof value === "function" ? (value as (...args: Array<unknown>) => unknown).bind(target) : value;
};

/** A store on its own connection, counting the stream queries it really makes. */
const connect = (path: string) => {
  const db = openSqliteEventDatabase({ path });
  let queries = 0;
  const counted = new Proxy(db, {
    get: (target, property) => {
      if (property !== "prepare") return own(target, property);
      return (sql: string) => {
        const statement = target.prepare(sql);
        if (!sql.includes("stream_revision >= ?")) return statement;
        return new Proxy(statement, {
          get: (inner, name) =>
            name === "all"
              ? (...args: Array<never>) => {
                  queries++;
                  return inner.all(...args);
                }
              : own(inner, name),
        });
      };
    },
  }) as DatabaseSync;
  return { store: makeSqliteEventStore(counted), queries: () => queries, close: () => db.close() };
};

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const event = (n: number) => ({ type: "Counted", data: { n } });
type Connection = ReturnType<typeof connect>;

/** `count` stores, each on its own connection to one new file, closed after `body`. */
const onOneFile = async (count: number, body: (connections: ReadonlyArray<Connection>, path: string) => Promise<void>) => {
  const path = join(dir, `events-${++files}.sqlite`);
  const connections = Array.from({ length: count }, () => connect(path));
  try {
    await body(connections, path);
  } finally {
    for (const connection of connections) connection.close();
  }
};

describe("SQLite reads past a stream's head", () => {
  it("are answered without a query while no other connection commits", () =>
    onOneFile(1, async ([a]) => {
      await Effect.runPromise(a!.store.appendToStream("s", [event(0), event(1)], { expectedRevision: -1 }));
      await nextTurn();
      const before = a!.queries();
      for (let i = 0; i < 3; i++) expect(await Effect.runPromise(a!.store.readStream("s", { fromRevision: 2 }))).toEqual([]);
      expect(a!.queries() - before).toBe(0);
      expect((await Effect.runPromise(a!.store.readStream("s", { fromRevision: 1 }))).map((e) => e.streamRevision)).toEqual([1]);
      expect(a!.queries() - before).toBe(1);
    }));

  it("see another connection's commit from the next turn of the event loop", () =>
    onOneFile(2, async ([a, b]) => {
      expect(await Effect.runPromise(a!.store.readStream("s"))).toEqual([]);
      await Effect.runPromise(b!.store.appendToStream("s", [event(0)], { expectedRevision: -1 }));
      await nextTurn();
      expect((await Effect.runPromise(a!.store.readStream("s"))).map((e) => e.data)).toEqual([{ n: 0 }]);
      // And a head it learned by appending itself is forgotten alike.
      await Effect.runPromise(a!.store.appendToStream("s", [event(1)], { expectedRevision: 0 }));
      await nextTurn();
      await Effect.runPromise(b!.store.appendToStream("s", [event(2)], { expectedRevision: 1 }));
      await nextTurn();
      expect((await Effect.runPromise(a!.store.readStream("s", { fromRevision: 2 }))).map((e) => e.data)).toEqual([{ n: 2 }]);
    }));

  it("see another OS process's appends (the CLI's, another instance's) from the next turn", () =>
    onOneFile(1, async ([a], path) => {
      expect(await Effect.runPromise(a!.store.readStream("counter"))).toEqual([]);
      const barrier = join(dir, `ready-${files}`);
      mkdirSync(barrier);
      // test/support/sqlite-append-worker.ts appends one event to "counter" per round, in its own process.
      const worker = join(import.meta.dirname, "../support/sqlite-append-worker.ts");
      await promisify(execFile)(process.execPath, ["--disable-warning=ExperimentalWarning", "--import", "tsx", worker, path, "B", "2", barrier, "1"], {
        cwd: join(import.meta.dirname, "../.."),
      });
      await nextTurn();
      expect((await Effect.runPromise(a!.store.readStream("counter"))).map((e) => e.data)).toEqual([
        { who: "B", i: 0 },
        { who: "B", i: 1 },
      ]);
    }));

  it("forget a stream whose append lost a race, so the winner's events are read at once", () =>
    onOneFile(2, async ([a, b]) => {
      await Effect.runPromise(a!.store.appendToStream("s", [event(0)], { expectedRevision: -1 }));
      await nextTurn();
      expect(await Effect.runPromise(a!.store.readStream("s", { fromRevision: 1 }))).toEqual([]);
      // In the same turn: b appends, a's append at the revision it knew conflicts, and a reads again.
      await Effect.runPromise(b!.store.appendToStream("s", [event(1)], { expectedRevision: 0 }));
      const lost = await Effect.runPromise(Effect.flip(a!.store.appendToStream("s", [event(9)], { expectedRevision: 0 })));
      expect(lost._tag).toBe("ConcurrencyConflict");
      expect((await Effect.runPromise(a!.store.readStream("s", { fromRevision: 1 }))).map((e) => e.data)).toEqual([{ n: 1 }]);
    }));
});
