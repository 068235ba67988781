import { describe, expect, it } from "vitest";
import type { QuotaEvent } from "../../src/domain/quota-ledger.ts";
import { billTotals, logStepOf, type OpenReservation } from "../../src/domain/receipts/receipt.ts";

const reserved: QuotaEvent = {
  type: "QuotaReserved",
  data: {
    requestId: "req_1",
    keyId: "key_1",
    operation: "ocr",
    accountId: "acc_1",
    period: "2026-11",
    units: 3,
    limit: 500,
    expiresAt: "2026-11-26T10:05:00.000Z",
    at: "2026-11-26T10:00:00.000Z",
  },
};
const open: OpenReservation = { account: "acc_1", requestId: "req_1", operation: "ocr", units: 3, period: "2026-11" };

describe("the receipts log's reading of the quota ledger", () => {
  it("given a reservation, remembers who asked for how many units", () => {
    expect(logStepOf(reserved, undefined)).toEqual({ _tag: "Open", reservation: open });
  });

  it("given the open reservation, a commit is a charge of its units and a release a release, at the ledger's time", () => {
    const at = "2026-11-26T10:00:02.000Z";
    expect(logStepOf({ type: "QuotaCommitted", data: { requestId: "req_1", at } }, open)).toEqual({
      _tag: "Movement",
      body: { v: 1, kind: "charge", ...open, at },
    });
    expect(logStepOf({ type: "QuotaReleased", data: { requestId: "req_1", reason: "engine failed", at } }, open)).toEqual({
      _tag: "Movement",
      body: { v: 1, kind: "release", ...open, at },
    });
  });

  it("moves nothing for a refusal, or for a commit or release whose reservation is not open", () => {
    expect(logStepOf({ type: "QuotaCommitted", data: { requestId: "req_9", at: "2026-11-26T10:00:00.000Z" } }, undefined)).toEqual({ _tag: "Nothing" });
    const refused: QuotaEvent = {
      type: "QuotaReservationRefused",
      data: { ...reserved.data, limit: 50, used: 50, reserved: 0 },
    } as QuotaEvent;
    expect(logStepOf(refused, undefined)).toEqual({ _tag: "Nothing" });
  });

  it("totals a bill as charges net of refunds; releases were never charged", () => {
    expect(
      billTotals([
        { kind: "charge", units: 1 },
        { kind: "charge", units: 3 },
        { kind: "release", units: 2 },
        { kind: "refund", units: 1 },
      ]),
    ).toEqual({ units: 3, charges: 2, releases: 1, refunds: 1 });
  });
});
