import { describe, expect, it } from "vitest";
import { type BucketState, returnToken, takeToken } from "../../src/domain/token-bucket.ts";

const policy = { burst: 15, perMinute: 10 };

describe("token bucket", () => {
  it("allows a burst of 15, then refuses the 16th with a retry delay", () => {
    let state: BucketState | undefined;
    const allowed: boolean[] = [];
    for (let i = 0; i < 16; i++) {
      const decision = takeToken(state, policy, 0);
      allowed.push(decision.allowed);
      state = decision.state;
    }
    expect(allowed.filter(Boolean)).toHaveLength(15);
    expect(allowed[15]).toBe(false);
    expect(takeToken(state, policy, 0).retryAfterSeconds).toBe(6);
  });

  it("refills at 10 per minute", () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 15; i++) state = takeToken(state, policy, 0).state;
    expect(takeToken(state, policy, 5_999).allowed).toBe(false);
    const after6s = takeToken(state, policy, 6_000);
    expect(after6s.allowed).toBe(true);
    let granted = 0;
    let s = state;
    for (let i = 0; i < 20; i++) {
      const d = takeToken(s, policy, 60_000);
      if (d.allowed) granted++;
      s = d.state;
    }
    expect(granted).toBe(10);
  });

  it("never holds more than the burst, however long it rests", () => {
    const rested = takeToken({ tokens: 0, updatedAtMs: 0 }, policy, 24 * 3600_000);
    expect(rested.remaining).toBe(14);
    expect(rested.resetSeconds).toBe(6);
  });

  it("ignores a clock that steps backwards", () => {
    const decision = takeToken({ tokens: 1, updatedAtMs: 10_000 }, policy, 0);
    expect(decision.allowed).toBe(true);
    expect(decision.state.updatedAtMs).toBe(10_000);
  });

  it("takes back a returned token, refilled to now first, never past the burst", () => {
    const emptied = takeToken({ tokens: 1, updatedAtMs: 0 }, policy, 0).state;
    expect(returnToken(emptied, policy, 3_000)).toEqual({ tokens: 1.5, updatedAtMs: 3_000 });
    expect(returnToken(undefined, policy, 0)).toEqual({ tokens: 15, updatedAtMs: 0 });
    expect(returnToken({ tokens: 14.5, updatedAtMs: 0 }, policy, 0).tokens).toBe(15);
  });
});
