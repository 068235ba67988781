import type { RatePolicy } from "./plan.ts";

/**
 * Token-bucket arithmetic. Pure: the caller supplies "now" and stores the state.
 * A full bucket holds `burst` tokens; it refills continuously at `perMinute`.
 */
export interface BucketState {
  readonly tokens: number;
  readonly updatedAtMs: number;
}

export interface BucketDecision {
  readonly allowed: boolean;
  readonly state: BucketState;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Seconds until one token is available (0 when allowed). */
  readonly retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
}

export const fullBucket = (policy: RatePolicy, nowMs: number): BucketState => ({
  tokens: policy.burst,
  updatedAtMs: nowMs,
});

const refill = (state: BucketState, policy: RatePolicy, nowMs: number): BucketState => {
  const elapsedMs = Math.max(0, nowMs - state.updatedAtMs);
  const tokens = Math.min(policy.burst, state.tokens + (elapsedMs * policy.perMinute) / 60_000);
  return { tokens, updatedAtMs: Math.max(nowMs, state.updatedAtMs) };
};

const secondsFor = (tokensNeeded: number, policy: RatePolicy): number => (tokensNeeded <= 0 ? 0 : Math.ceil((tokensNeeded * 60) / policy.perMinute));

export const takeToken = (previous: BucketState | undefined, policy: RatePolicy, nowMs: number): BucketDecision => {
  const current = refill(previous ?? fullBucket(policy, nowMs), policy, nowMs);
  const allowed = current.tokens >= 1;
  const state = allowed ? { tokens: current.tokens - 1, updatedAtMs: current.updatedAtMs } : current;
  return {
    allowed,
    state,
    remaining: Math.floor(state.tokens),
    retryAfterSeconds: allowed ? 0 : Math.max(1, secondsFor(1 - state.tokens, policy)),
    resetSeconds: secondsFor(policy.burst - state.tokens, policy),
  };
};

/** A token handed back (a request that should not have cost one): refilled to now, plus one, never past the burst. */
export const returnToken = (previous: BucketState | undefined, policy: RatePolicy, nowMs: number): BucketState => {
  const current = refill(previous ?? fullBucket(policy, nowMs), policy, nowMs);
  return { tokens: Math.min(policy.burst, current.tokens + 1), updatedAtMs: current.updatedAtMs };
};
