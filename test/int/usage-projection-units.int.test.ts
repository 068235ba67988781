import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Effect } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteProjectionsLayer } from "../../src/adapters/projections/sqlite-projections.ts";
import type { JsonObject, RecordedEvent } from "../../src/ports/event-store.ts";
import { UsageProjection } from "../../src/ports/projections.ts";

/**
 * Documents reserve one unit per page: the usage projection counts units, also in a database
 * made before reservations had units (its open reservations then held one unit each).
 */
const dir = mkdtempSync(join(tmpdir(), "usage-units-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = "2026-11-14T10:00:00.000Z";
let position = 0;
const event = (type: string, data: JsonObject, schemaVersion?: number): RecordedEvent => ({
  eventId: randomUUID(),
  streamName: "quota-a-2026-11",
  streamRevision: position,
  globalPosition: ++position,
  type,
  data,
  metadata: schemaVersion === undefined ? {} : { schemaVersion },
  recordedAt: at,
});
const attribution = { keyId: "k1", operation: "ocr", accountId: "a", period: "2026-11", limit: 50, expiresAt: at, at };

describe("usage projection and units", () => {
  it("upgrades a database from before units, then counts a document's pages as units", async () => {
    const path = join(dir, "projections.sqlite");
    // The open-reservation table as versions before documents made it, holding one open reservation.
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE usage_open_reservations (request_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, period TEXT NOT NULL,
              operation TEXT NOT NULL, key_id TEXT NOT NULL) STRICT;
              INSERT INTO usage_open_reservations VALUES ('old', 'a', '2026-11', 'ocr', 'k1');`);
    old.close();

    const rows = await Effect.runPromise(
      Effect.gen(function* () {
        const usage = yield* UsageProjection;
        yield* usage.apply([
          event("QuotaCommitted", { requestId: "old", at }),
          event("QuotaReserved", { ...attribution, requestId: "doc", units: 3 }, 2),
          event("QuotaCommitted", { requestId: "doc", at }),
          event("QuotaReserved", { ...attribution, requestId: "failed", units: 2 }, 2),
          event("QuotaReleased", { requestId: "failed", reason: "InvalidImage", at }),
          event("QuotaReservationRefused", { ...attribution, requestId: "big", units: 20, used: 4, reserved: 0 }, 3),
        ]);
        return (yield* usage.usageOf("a")).value;
      }).pipe(Effect.provide(sqliteProjectionsLayer({ path })), Effect.scoped),
    );
    expect(rows).toEqual([{ accountId: "a", period: "2026-11", operation: "ocr", keyId: "k1", reserved: 5, committed: 4, released: 2, refused: 1 }]);
  });
});
