import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_TTL_MS, type IdempotencyEvent, idempotentRequestDecider, type RecordedResponse } from "../../src/domain/idempotent-request.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const spec = deciderSpec(idempotentRequestDecider);
const now = new Date("2026-11-23T10:00:00.000Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const LEASE = 60_000;

const begin = (attemptId: string, fingerprint = "f1", when = now) => ({ type: "BeginAttempt" as const, attemptId, fingerprint, leaseMs: LEASE, now: when });
const started = (attemptId: string, fingerprint = "f1", when = now): IdempotencyEvent => ({
  type: "IdempotentRequestStarted",
  data: {
    attemptId,
    fingerprint,
    leaseUntil: new Date(when.getTime() + LEASE).toISOString(),
    expiresAt: new Date(when.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
    at: when.toISOString(),
  },
});
const response = { status: 200, bodyRef: "b1", bodySha256: "0".repeat(64) };
/** As stored before issue 24: the body itself. */
const inline = { status: 200, body: { success: true, data: { requestId: "r1" } } };
const completed = (attemptId: string, recorded: RecordedResponse = response): IdempotencyEvent => ({
  type: "IdempotentRequestCompleted",
  data: { attemptId, response: recorded, at: now.toISOString() },
});
const releasedEvent = (attemptId: string): IdempotencyEvent => ({ type: "IdempotentRequestReleased", data: { attemptId, at: now.toISOString() } });

describe("idempotent request", () => {
  it("lets the first attempt run", () => {
    spec
      .given([])
      .when(begin("a1"))
      .then([started("a1")]);
  });

  it("replays a completed request with the same fingerprint: accepted with no event, the response in state", () => {
    spec
      .given([started("a1"), completed("a1")])
      .when(begin("a2"))
      .then([]);
    expect(spec.given([started("a1"), completed("a1")]).state()).toMatchObject({ status: "completed", response });
  });

  it("refuses another fingerprint, running or completed", () => {
    spec
      .given([started("a1")])
      .when(begin("a2", "f2"))
      .thenRejects("IDEMPOTENCY_KEY_REUSED");
    spec
      .given([started("a1"), completed("a1")])
      .when(begin("a2", "f2"))
      .thenRejects("IDEMPOTENCY_KEY_REUSED");
  });

  it("says in use while the first attempt holds its lease, and lets a repeat take over once it has passed", () => {
    spec
      .given([started("a1")])
      .when(begin("a2", "f1", later(LEASE - 1)))
      .thenRejects("IDEMPOTENCY_KEY_IN_USE");
    spec
      .given([started("a1")])
      .when(begin("a2", "f1", later(LEASE)))
      .then([started("a2", "f1", later(LEASE))]);
  });

  it("frees the key when the attempt is released, and after 24 hours", () => {
    spec
      .given([started("a1"), releasedEvent("a1")])
      .when(begin("a2"))
      .then([started("a2")]);
    spec
      .given([started("a1"), completed("a1")])
      .when(begin("a2", "f2", later(IDEMPOTENCY_TTL_MS)))
      .then([started("a2", "f2", later(IDEMPOTENCY_TTL_MS))]);
  });

  it("still reads a completion that holds the body itself (stored before issue 24), and frees its key after 24 hours too", () => {
    expect(spec.given([started("a1"), completed("a1", inline)]).state()).toMatchObject({ status: "completed", response: inline });
    spec
      .given([started("a1"), completed("a1", inline)])
      .when(begin("a2", "f1", later(IDEMPOTENCY_TTL_MS - 1)))
      .then([]);
    spec
      .given([started("a1"), completed("a1", inline)])
      .when(begin("a2", "f1", later(IDEMPOTENCY_TTL_MS)))
      .then([started("a2", "f1", later(IDEMPOTENCY_TTL_MS))]);
  });

  it("lets only the attempt that holds the key finish it", () => {
    spec
      .given([started("a1"), started("a2", "f1", later(LEASE))])
      .when({ type: "CompleteAttempt", attemptId: "a1", response, now })
      .then([]);
    spec
      .given([started("a1")])
      .when({ type: "CompleteAttempt", attemptId: "a1", response, now })
      .then([completed("a1")]);
    spec
      .given([started("a1")])
      .when({ type: "ReleaseAttempt", attemptId: "a1", now })
      .then([releasedEvent("a1")]);
    spec
      .given([started("a1"), completed("a1")])
      .when({ type: "ReleaseAttempt", attemptId: "a1", now })
      .then([]);
  });
});
