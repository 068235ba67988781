import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Effect } from "effect";
import { afterAll } from "vitest";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { eventStoreContract, eventStoreFaultsContract, instanceOf } from "./support/event-store-contract.ts";

const storage = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "its-events-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })),
).pipe(
  Effect.map((dir) => {
    const path = join(dir, "events.sqlite");
    return {
      open: instanceOf(sqliteEventStoreLayer({ path, pollInterval: "10 millis" })),
      damageData: (streamName: string, revision: number) =>
        Effect.sync(() => {
          const db = new DatabaseSync(path);
          try {
            db.prepare("UPDATE events SET data = '[1]' WHERE stream_name = ? AND stream_revision = ?").run(streamName, revision);
          } finally {
            db.close();
          }
        }),
    };
  }),
);

eventStoreContract({ name: "sqlite", storage });

// A file where the store's folder should be: the database cannot be opened.
const blocked = mkdtempSync(join(tmpdir(), "its-events-unavailable-"));
afterAll(() => rmSync(blocked, { recursive: true, force: true }));
writeFileSync(join(blocked, "not-a-folder"), "");

eventStoreFaultsContract({ name: "sqlite", unreachable: sqliteEventStoreLayer({ path: join(blocked, "not-a-folder", "events.sqlite") }) });
