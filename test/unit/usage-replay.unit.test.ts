import { describe, expect, it } from "vitest";
import type { QuotaEvent } from "../../src/domain/quota-ledger.ts";
import { replayUsage } from "../../src/domain/usage-replay.ts";

const at = "2026-11-14T10:00:00.000Z";
const reserved = (requestId: string, keyId: string, operation: "generate" | "ocr" = "generate", units = 1): QuotaEvent => ({
  type: "QuotaReserved",
  data: { requestId, keyId, operation, accountId: "a", period: "2026-11", units, limit: 50, expiresAt: at, at },
});
const refused = (requestId: string, keyId: string): QuotaEvent => ({
  type: "QuotaReservationRefused",
  data: { requestId, keyId, operation: "generate", accountId: "a", period: "2026-11", units: 1, limit: 50, used: 50, reserved: 0, at },
});
const committed = (requestId: string): QuotaEvent => ({ type: "QuotaCommitted", data: { requestId, at } });
const released = (requestId: string): QuotaEvent => ({ type: "QuotaReleased", data: { requestId, reason: "InvalidImage", at } });

describe("usage replay", () => {
  it("attributes commits and releases to the open reservation of their request", () => {
    const events = [reserved("r1", "k1"), reserved("r2", "k2", "ocr"), committed("r2"), released("r1"), refused("r3", "k1"), reserved("r4", "k1")];
    const replay = replayUsage(events);
    expect(replay.lines).toEqual([
      { period: "2026-11", operation: "generate", keyId: "k1", reserved: 2, committed: 0, released: 1, refused: 1 },
      { period: "2026-11", operation: "ocr", keyId: "k2", reserved: 1, committed: 1, released: 0, refused: 0 },
    ]);
    expect(replay.attributions.map((a) => a?.requestId)).toEqual(["r1", "r2", "r2", "r1", "r3", "r4"]);
    expect(replay.attributions[2]).toEqual({ requestId: "r2", keyId: "k2", operation: "ocr", period: "2026-11", units: 1 });
    expect(replay.open).toBe(1);
  });

  it("counts nothing for a commit or release with no open reservation, as the ledger does", () => {
    const replay = replayUsage([committed("ghost"), reserved("r1", "k1"), committed("r1"), committed("r1"), released("r1")]);
    expect(replay.lines).toEqual([{ period: "2026-11", operation: "generate", keyId: "k1", reserved: 1, committed: 1, released: 0, refused: 0 }]);
    expect(replay.attributions.map((a) => a?.requestId)).toEqual([undefined, "r1", "r1", undefined, undefined]);
    expect(replay.open).toBe(0);
  });

  it("replays nothing to nothing", () => {
    expect(replayUsage([])).toEqual({ lines: [], attributions: [], open: 0 });
  });

  it("counts a document's units in reserved, committed and released, and a refusal as one refused request", () => {
    const refusedDocument: QuotaEvent = {
      type: "QuotaReservationRefused",
      data: { requestId: "d3", keyId: "k1", operation: "ocr", accountId: "a", period: "2026-11", units: 7, limit: 50, used: 45, reserved: 0, at },
    };
    const replay = replayUsage([reserved("d1", "k1", "ocr", 3), committed("d1"), reserved("d2", "k1", "ocr", 2), released("d2"), refusedDocument]);
    expect(replay.lines).toEqual([{ period: "2026-11", operation: "ocr", keyId: "k1", reserved: 5, committed: 3, released: 2, refused: 1 }]);
  });
});
