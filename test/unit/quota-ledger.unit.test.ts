import { describe, expect, it } from "vitest";
import { type QuotaEvent, quotaLedgerDecider, usedByKey } from "../../src/domain/quota-ledger.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const spec = deciderSpec(quotaLedgerDecider);
const now = new Date("2026-11-22T10:00:00.000Z");
const at = now.toISOString();
const expiresAt = new Date(now.getTime() + 60_000);

const reserve = (requestId: string, limit: number | null = 2, when = now, units = 1) => ({
  type: "ReserveQuota" as const,
  requestId,
  units,
  accountId: "acc_1",
  keyId: "k1",
  operation: "generate" as const,
  period: "2026-11",
  limit,
  expiresAt: new Date(when.getTime() + 60_000),
  now: when,
});

const reserved = (requestId: string, limit: number | null = 2, units = 1): QuotaEvent => ({
  type: "QuotaReserved",
  data: { requestId, keyId: "k1", operation: "generate", accountId: "acc_1", period: "2026-11", units, limit, expiresAt: expiresAt.toISOString(), at },
});
const committed = (requestId: string): QuotaEvent => ({ type: "QuotaCommitted", data: { requestId, at } });
const released = (requestId: string): QuotaEvent => ({ type: "QuotaReleased", data: { requestId, reason: "InvalidImage", at } });

describe("quota ledger", () => {
  it("reserves a unit while the limit is not reached", () => {
    spec
      .given([])
      .when(reserve("r1"))
      .then([reserved("r1")]);
  });

  it("counts open reservations against the limit, so concurrent requests cannot overshoot", () => {
    spec
      .given([reserved("r1"), reserved("r2")])
      .when(reserve("r3"))
      .then([
        {
          type: "QuotaReservationRefused",
          data: { requestId: "r3", keyId: "k1", operation: "generate", accountId: "acc_1", period: "2026-11", units: 1, limit: 2, used: 0, reserved: 2, at },
        },
      ]);
  });

  it("refuses once committed units reach the limit", () => {
    const decision = quotaLedgerDecider.decide(reserve("r3"), spec.given([reserved("r1"), committed("r1"), reserved("r2"), committed("r2")]).state());
    expect(decision.ok && decision.events[0]?.type).toBe("QuotaReservationRefused");
  });

  it("gives a released unit back: failures cost nothing", () => {
    spec
      .given([reserved("r1"), released("r1"), reserved("r2")])
      .when(reserve("r3"))
      .then([reserved("r3")]);
    expect(spec.given([reserved("r1"), released("r1")]).state().used).toBe(0);
  });

  it("never limits an unlimited plan", () => {
    const many = Array.from({ length: 1000 }, (_, i) => [reserved(`r${i}`, null), committed(`r${i}`)]).flat();
    spec
      .given(many)
      .when(reserve("next", null))
      .then([reserved("next", null)]);
    expect(spec.given(many).state().used).toBe(1000);
  });

  it("lets an expired reservation's unit go to others (a killed process holds nothing forever)", () => {
    const later = new Date(expiresAt.getTime() + 1);
    const decision = quotaLedgerDecider.decide(reserve("r3", 2, later), spec.given([reserved("r1"), reserved("r2")]).state());
    expect(decision.ok && decision.events[0]?.type).toBe("QuotaReserved");
  });

  it("refuses to commit an expired reservation whose unit others have taken", () => {
    const later = new Date(expiresAt.getTime() + 1);
    spec
      .given([reserved("r1", 1), reserved("r2", 1), committed("r2")])
      .when({ type: "CommitQuota", requestId: "r1", now: later })
      .thenRejects("RESERVATION_EXPIRED");
    spec
      .given([reserved("r1", 1)])
      .when({ type: "CommitQuota", requestId: "r1", now: later })
      .then([{ type: "QuotaCommitted", data: { requestId: "r1", at: later.toISOString() } }]);
  });

  it("commits and releases only open reservations, idempotently for retries", () => {
    spec.given([]).when({ type: "CommitQuota", requestId: "x", now }).thenRejects("RESERVATION_NOT_FOUND");
    spec
      .given([reserved("r1"), committed("r1")])
      .when({ type: "ReleaseQuota", requestId: "r1", reason: "late", now })
      .then([]);
    spec
      .given([reserved("r1")])
      .when(reserve("r1"))
      .then([]);
  });

  it("reserves a document's pages in one decision: all of them, or none when fewer are left", () => {
    spec
      .given([reserved("r1", 5)])
      .when(reserve("doc", 5, now, 4))
      .then([reserved("doc", 5, 4)]);
    spec
      .given([reserved("r1", 5), committed("r1"), reserved("r2", 5)])
      .when(reserve("doc", 5, now, 4))
      .then([
        {
          type: "QuotaReservationRefused",
          data: { requestId: "doc", keyId: "k1", operation: "generate", accountId: "acc_1", period: "2026-11", units: 4, limit: 5, used: 1, reserved: 1, at },
        },
      ]);
  });

  it("counts every unit of a committed document, and gives them all back when it fails", () => {
    expect(spec.given([reserved("doc", 5, 3), committed("doc")]).state().used).toBe(3);
    expect(spec.given([reserved("doc", 5, 3), released("doc")]).state().used).toBe(0);
    // Three units held by an open reservation leave two for others.
    const decision = quotaLedgerDecider.decide(reserve("r2", 5, now, 3), spec.given([reserved("doc", 5, 3)]).state());
    expect(decision.ok && decision.events[0]?.type).toBe("QuotaReservationRefused");
    spec
      .given([reserved("doc", 5, 3)])
      .when(reserve("r2", 5, now, 2))
      .then([reserved("r2", 5, 2)]);
  });

  it("refuses a reservation of no units", () => {
    spec
      .given([])
      .when(reserve("r1", 5, now, 0))
      .thenRejects("INVALID_UNITS");
  });

  it("commits an expired document only if all its units are still free", () => {
    const later = new Date(expiresAt.getTime() + 1);
    spec
      .given([reserved("doc", 4, 3), reserved("r2", 4, 1), committed("r2")])
      .when({ type: "CommitQuota", requestId: "doc", now: later })
      .then([{ type: "QuotaCommitted", data: { requestId: "doc", at: later.toISOString() } }]);
    spec
      .given([reserved("doc", 4, 3), reserved("r2", 4, 2), committed("r2")])
      .when({ type: "CommitQuota", requestId: "doc", now: later })
      .thenRejects("RESERVATION_EXPIRED");
  });

  it("holds a key to its own monthly limit, counting its open reservations, without an event and without touching the account's quota", () => {
    const forKey = (requestId: string, keyId: string, keyLimit: number | null) => ({ ...reserve(requestId, 10), keyId, keyLimit });
    const reservedBy = (requestId: string, keyId: string): QuotaEvent => {
      const event = reserved(requestId, 10);
      return { ...event, data: { ...event.data, keyId } } as QuotaEvent;
    };
    const history = [reservedBy("r1", "k1"), committed("r1"), reservedBy("r2", "k1")];
    spec
      .given(history)
      .when(forKey("r3", "k1", 2))
      .thenRejects("KEY_QUOTA_EXCEEDED");
    spec
      .given(history)
      .when(forKey("r3", "k1", 3))
      .then([reservedBy("r3", "k1")]);
    // Another key's units are its own.
    spec
      .given(history)
      .when(forKey("r3", "k2", 1))
      .then([reservedBy("r3", "k2")]);
    // A released reservation frees the key's units again.
    spec
      .given([...history, released("r2")])
      .when(forKey("r3", "k1", 2))
      .then([reservedBy("r3", "k1")]);
    const state = spec.given([...history, committed("r2"), reservedBy("r4", "k2"), committed("r4")]).state();
    expect(usedByKey(state, "k1")).toBe(2);
    expect(usedByKey(state, "k2")).toBe(1);
    expect(usedByKey(state, "k3")).toBe(0);
    expect(state.used).toBe(3);
  });
});
