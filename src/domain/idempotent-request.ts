import { accept, type Decider, type Decision, reject } from "./decider.ts";

/**
 * One Idempotency-Key of one account (docs/api-decisions.md): the first request with it runs,
 * and its response is kept for 24 hours; a repeat with the same fingerprint (method, path, body)
 * gets that response again, one with another fingerprint is refused. An attempt holds the key
 * for a lease: if its instance dies, the next repeat takes over once the lease has passed. After
 * 24 hours the key is free again: a repeat is a new request.
 * Stream: `idempotency-<accountId>-<digest of the key>`.
 */
export const idempotencyStream = (accountId: string, keyDigest: string): string => `idempotency-${accountId}-${keyDigest}`;

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** When a key taken at `now` is free again, and its response no longer kept. */
export const idempotencyExpiry = (now: Date): Date => new Date(now.getTime() + IDEMPOTENCY_TTL_MS);

/**
 * What the permanent log holds of a response: its status, and a reference to its JSON body, kept
 * for the key's 24 hours outside the log, with the body's SHA-256 that a replay checks (issue 24).
 */
export interface ResponseReference {
  readonly status: number;
  readonly bodyRef: string;
  readonly bodySha256: string;
}

/** Events written before issue 24 held the body itself: still read, and replayed only within the key's 24 hours. */
export interface InlineResponse {
  readonly status: number;
  readonly body: { readonly [key: string]: unknown };
}

export type RecordedResponse = ResponseReference | InlineResponse;

export type IdempotencyEvent =
  | {
      readonly type: "IdempotentRequestStarted";
      readonly data: { attemptId: string; fingerprint: string; leaseUntil: string; expiresAt: string; at: string };
    }
  | { readonly type: "IdempotentRequestCompleted"; readonly data: { attemptId: string; response: RecordedResponse; at: string } }
  | { readonly type: "IdempotentRequestReleased"; readonly data: { attemptId: string; at: string } };

export type IdempotencyCommand =
  | { readonly type: "BeginAttempt"; readonly attemptId: string; readonly fingerprint: string; readonly leaseMs: number; readonly now: Date }
  | { readonly type: "CompleteAttempt"; readonly attemptId: string; readonly response: ResponseReference; readonly now: Date }
  | { readonly type: "ReleaseAttempt"; readonly attemptId: string; readonly now: Date };

export type IdempotencyState =
  | { readonly status: "free" }
  | { readonly status: "running"; readonly attemptId: string; readonly fingerprint: string; readonly leaseUntil: string; readonly expiresAt: string }
  | { readonly status: "completed"; readonly fingerprint: string; readonly expiresAt: string; readonly response: RecordedResponse };

export const KEY_REUSED = "IDEMPOTENCY_KEY_REUSED";
export const KEY_IN_USE = "IDEMPOTENCY_KEY_IN_USE";

const start = (command: Extract<IdempotencyCommand, { type: "BeginAttempt" }>): Decision<IdempotencyEvent> =>
  accept({
    type: "IdempotentRequestStarted",
    data: {
      attemptId: command.attemptId,
      fingerprint: command.fingerprint,
      leaseUntil: new Date(command.now.getTime() + command.leaseMs).toISOString(),
      expiresAt: idempotencyExpiry(command.now).toISOString(),
      at: command.now.toISOString(),
    },
  });

const passed = (instant: string, now: Date): boolean => Date.parse(instant) <= now.getTime();

/** A BeginAttempt that is accepted with no event finds the recorded response: the caller replays it. */
const decide = (command: IdempotencyCommand, state: IdempotencyState): Decision<IdempotencyEvent> => {
  const at = command.now.toISOString();
  if (command.type === "BeginAttempt") {
    if (state.status === "free" || passed(state.expiresAt, command.now)) return start(command);
    if (state.fingerprint !== command.fingerprint) {
      return reject(KEY_REUSED, "This Idempotency-Key was used for a different request (method, path or body).");
    }
    if (state.status === "completed") return accept();
    return passed(state.leaseUntil, command.now) ? start(command) : reject(KEY_IN_USE, "The first request with this Idempotency-Key is still running.");
  }
  // Only the attempt that holds the key finishes it; one that lost its lease changes nothing.
  if (state.status !== "running" || state.attemptId !== command.attemptId) return accept();
  return command.type === "CompleteAttempt"
    ? accept({ type: "IdempotentRequestCompleted", data: { attemptId: command.attemptId, response: command.response, at } })
    : accept({ type: "IdempotentRequestReleased", data: { attemptId: command.attemptId, at } });
};

const evolve = (state: IdempotencyState, event: IdempotencyEvent): IdempotencyState => {
  switch (event.type) {
    case "IdempotentRequestStarted": {
      const { attemptId, fingerprint, leaseUntil, expiresAt } = event.data;
      return { status: "running", attemptId, fingerprint, leaseUntil, expiresAt };
    }
    case "IdempotentRequestCompleted":
      return state.status === "running"
        ? { status: "completed", fingerprint: state.fingerprint, expiresAt: state.expiresAt, response: event.data.response }
        : state;
    case "IdempotentRequestReleased":
      return { status: "free" };
  }
};

export const idempotentRequestDecider: Decider<IdempotencyCommand, IdempotencyEvent, IdempotencyState> = {
  decide,
  evolve,
  initialState: () => ({ status: "free" }),
};
