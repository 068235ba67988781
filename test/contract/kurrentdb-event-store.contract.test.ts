import { Effect } from "effect";
import { afterAll, beforeAll, describe } from "vitest";
import { kurrentDbEventStoreLayer } from "../../src/adapters/event-store/kurrentdb-event-store.ts";
import { findKurrentDb, type KurrentDbServer, startKurrentDb } from "../support/kurrentdb-server.ts";
import { eventStoreContract, eventStoreFaultsContract, instanceOf } from "./support/event-store-contract.ts";

/**
 * KurrentDB has no throwaway storage: tests share the server and keep apart by unique stream names.
 * The server is KURRENTDB_URL's, or a container where Docker answers; without either the suite says it skipped.
 */
const kurrentDb = await findKurrentDb();
if (kurrentDb.kind === "none") console.warn(`[event-store contract] KurrentDB: SKIPPED — ${kurrentDb.reason}`);
let server: KurrentDbServer | undefined;
describe.skipIf(kurrentDb.kind === "none")(`KurrentDB server (${kurrentDb.kind === "url" ? "KURRENTDB_URL" : "testcontainers"})`, () => {
  beforeAll(async () => {
    if (kurrentDb.kind !== "none") server = await startKurrentDb(kurrentDb);
  }, 300_000);
  afterAll(() => server?.stop());
  eventStoreContract({
    name: "kurrentdb",
    storage: Effect.sync(() => ({ open: instanceOf(kurrentDbEventStoreLayer({ connectionString: server?.url ?? "" })) })),
  });
});

eventStoreFaultsContract({
  name: "kurrentdb",
  unreachable: kurrentDbEventStoreLayer({ connectionString: "kurrentdb://127.0.0.1:1?tls=false&maxDiscoverAttempts=1" }),
});
