/**
 * A second OS process writing to one SQLite event file, for the multi-process test.
 * argv: <database path> <writer name> <rounds> <barrier folder> <writers>
 * Writers start together: each marks itself ready in the barrier folder and waits for all the others,
 * so that slow process start-up cannot serialize them.
 * Each round appends one event to the shared stream "counter" (reading its revision and retrying on
 * conflict) and a batch of three to "log" with expected revision "any". Prints a JSON summary.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Effect } from "effect";
import { makeSqliteEventStore, openSqliteEventDatabase } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { ConcurrencyConflict } from "../../src/ports/event-store.ts";

const [path, who, roundsArg, barrier, writers] = process.argv.slice(2);
if (path === undefined || who === undefined || barrier === undefined) throw new Error("usage: <path> <writer> <rounds> <barrier> <writers>");
const rounds = Number(roundsArg);

const db = openSqliteEventDatabase({ path });
const store = makeSqliteEventStore(db);

const program = Effect.gen(function* () {
  writeFileSync(join(barrier, who), "");
  while (readdirSync(barrier).length < Number(writers)) yield* Effect.sleep(5);
  const startedAt = Date.now();
  let conflicts = 0;
  for (let i = 0; i < rounds; i++) {
    for (;;) {
      const revision = (yield* store.readStream("counter")).length - 1;
      const outcome = yield* Effect.result(store.appendToStream("counter", [{ type: "Counted", data: { who, i } }], { expectedRevision: revision }));
      if (outcome._tag === "Success") break;
      if (!(outcome.failure instanceof ConcurrencyConflict)) return yield* Effect.fail(outcome.failure);
      conflicts++;
    }
    yield* store.appendToStream(
      "log",
      [0, 1, 2].map((item) => ({ type: "Logged", data: { who, i, item } })),
      { expectedRevision: "any" },
    );
  }
  return { who, conflicts, startedAt, finishedAt: Date.now() };
});

const summary = await Effect.runPromise(program).finally(() => db.close());
console.log(JSON.stringify(summary));
