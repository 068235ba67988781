import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Effect } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { makeSqliteEventStore, openSqliteEventDatabase } from "../../src/adapters/event-store/sqlite-event-store.ts";
import type { RecordedEvent } from "../../src/ports/event-store.ts";

const run = promisify(execFile);
const worker = join(import.meta.dirname, "../support/sqlite-append-worker.ts");
const dir = mkdtempSync(join(tmpdir(), "its-events-processes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Summary {
  readonly who: string;
  readonly conflicts: number;
  readonly startedAt: number;
  readonly finishedAt: number;
}

describe("SQLite event store shared by two OS processes", () => {
  it("keeps exact totals, revisions and order when both append at the same time", async () => {
    const path = join(dir, "events.sqlite");
    const rounds = 200;
    const barrier = join(dir, "ready");
    mkdirSync(barrier);
    const spawn = (who: string) =>
      run(process.execPath, ["--disable-warning=ExperimentalWarning", "--import", "tsx", worker, path, who, String(rounds), barrier, "2"], {
        cwd: join(import.meta.dirname, "../.."),
      }).then(({ stdout }) => JSON.parse(stdout) as Summary);
    const summaries = await Promise.all([spawn("A"), spawn("B")]);

    // The test only means something if the two processes really wrote at the same time.
    const [a, b] = summaries;
    expect(a!.startedAt).toBeLessThan(b!.finishedAt);
    expect(b!.startedAt).toBeLessThan(a!.finishedAt);

    const db = openSqliteEventDatabase({ path });
    try {
      const store = makeSqliteEventStore(db);
      const counter = await Effect.runPromise(store.readStream("counter"));
      const log = await Effect.runPromise(store.readStream("log"));
      const all: Array<RecordedEvent> = [];
      for (;;) {
        const page = await Effect.runPromise(store.readAll({ after: all.at(-1)?.globalPosition ?? 0, limit: 1_000 }));
        if (page.length === 0) break;
        all.push(...page);
      }

      expect(counter.map((e) => e.streamRevision)).toEqual(Array.from({ length: 2 * rounds }, (_, i) => i));
      expect(log).toHaveLength(2 * rounds * 3);
      expect(all).toHaveLength(2 * rounds + 2 * rounds * 3);
      expect(new Set(all.map((e) => e.eventId)).size).toBe(all.length);
      for (let i = 1; i < all.length; i++) expect(all[i]!.globalPosition).toBeGreaterThan(all[i - 1]!.globalPosition);
      for (const who of ["A", "B"]) {
        expect(counter.filter((e) => e.data["who"] === who).map((e) => e.data["i"])).toEqual(Array.from({ length: rounds }, (_, i) => i));
        // Each batch of three stays together in the log stream.
        const mine = log.filter((e) => e.data["who"] === who);
        expect(mine.map((e) => [e.data["i"], e.data["item"]])).toEqual(Array.from({ length: rounds * 3 }, (_, k) => [Math.floor(k / 3), k % 3]));
      }
      for (let k = 0; k < log.length; k += 3) {
        const batch = log.slice(k, k + 3);
        expect(new Set(batch.map((e) => `${String(e.data["who"])}:${String(e.data["i"])}`)).size).toBe(1);
      }
      const switches = counter.filter((e, i) => i > 0 && e.data["who"] !== counter[i - 1]!.data["who"]).length;
      console.log(
        `[sqlite processes] writer switches in "counter": ${switches}; conflicts retried: ${summaries.map((s) => `${s.who}=${s.conflicts}`).join(", ")}`,
      );
    } finally {
      db.close();
    }
  });
});
