import { Effect } from "effect";
import { idempotencyExpiry, idempotencyStream, KEY_IN_USE, KEY_REUSED, type RecordedResponse } from "../../domain/idempotent-request.ts";
import { Clock } from "../../ports/clock.ts";
import { Ids } from "../../ports/ids.ts";
import type { Actor } from "../access/actor.ts";
import { type CommandRejected, IdempotencyKeyInUse, IdempotencyKeyReused } from "../errors.ts";
import { handleCommand } from "../event-sourcing/command-handler.ts";
import { idempotencyStreamType } from "../event-sourcing/events/idempotency-events.ts";
import { ServiceSettings } from "../settings.ts";
import { keepResponse, type ReplayedResponse, replayResponse, type ResponseToKeep } from "./kept-responses.ts";

/** One account's Idempotency-Key, as the HTTP adapter identifies it: a digest of the key and of the request. */
export interface IdempotentRequest {
  readonly accountId: string;
  readonly keyDigest: string;
  /** Method, path and body: what makes a repeat the same request. */
  readonly fingerprint: string;
  /** Who sent it: recorded in the key's events. */
  readonly actor: Actor;
}

/** Run: this attempt holds the key, and keeps its response until `expiresAt`. Replay: the first response, as it was sent. */
export type IdempotentStart =
  { readonly _tag: "Run"; readonly attemptId: string; readonly expiresAt: Date } | { readonly _tag: "Replay"; readonly response: ReplayedResponse };

type Decided = Extract<IdempotentStart, { _tag: "Run" }> | { readonly _tag: "Completed"; readonly response: RecordedResponse };

/** How long a repeat waits for the first request to finish before it gets 409 IDEMPOTENCY_KEY_IN_USE. */
const WAIT_MS = 10_000;
const POLL_MS = 50;

/**
 * Takes the key for this attempt (Run), or finds the first response (Replay). While the first
 * attempt runs, on this instance or another, a repeat waits for it. The store's expected revision
 * makes one attempt win however many arrive at once.
 */
export const beginIdempotentRequest = (request: IdempotentRequest) =>
  Effect.gen(function* () {
    const clock = yield* Clock;
    const attemptId = (yield* Ids).uuid();
    const leaseMs = (yield* ServiceSettings).reservationTtlMs;
    const stream = idempotencyStream(request.accountId, request.keyDigest);
    const giveUpAt = clock.now().getTime() + WAIT_MS;
    for (;;) {
      const now = clock.now();
      const decided = yield* handleCommand(
        idempotencyStreamType,
        stream,
        { type: "BeginAttempt", attemptId, fingerprint: request.fingerprint, leaseMs, now },
        { actor: request.actor },
      ).pipe(
        Effect.map((handled): Decided | undefined =>
          handled.events.length > 0
            ? { _tag: "Run", attemptId, expiresAt: idempotencyExpiry(now) }
            : handled.state.status === "completed"
              ? { _tag: "Completed", response: handled.state.response }
              : undefined,
        ),
        Effect.catchTag("CommandRejected", (rejected): Effect.Effect<undefined, CommandRejected | IdempotencyKeyReused> =>
          rejected.code === KEY_REUSED
            ? Effect.fail(new IdempotencyKeyReused({ message: rejected.message }))
            : rejected.code === KEY_IN_USE
              ? Effect.succeed(undefined)
              : Effect.fail(rejected),
        ),
      );
      if (decided?._tag === "Run") return decided;
      if (decided?._tag === "Completed") return { _tag: "Replay", response: yield* replayResponse(decided.response) } satisfies IdempotentStart;
      if (clock.now().getTime() >= giveUpAt) return yield* new IdempotencyKeyInUse({ retryAfterSeconds: 1 });
      yield* Effect.sleep(POLL_MS);
    }
  });

/**
 * Ends the attempt: the response is kept for repeats until the key expires, or (undefined) the key
 * is freed so that a repeat runs the request again, as after a failure that a retry may not meet
 * (5xx, 409, 429).
 */
export const finishIdempotentRequest = (
  request: IdempotentRequest,
  attempt: { readonly attemptId: string; readonly expiresAt: Date },
  response: ResponseToKeep | undefined,
) =>
  Effect.gen(function* () {
    const { attemptId } = attempt;
    const kept = response === undefined ? undefined : yield* keepResponse(response, attempt.expiresAt);
    const now = (yield* Clock).now();
    yield* handleCommand(
      idempotencyStreamType,
      idempotencyStream(request.accountId, request.keyDigest),
      kept === undefined ? { type: "ReleaseAttempt", attemptId, now } : { type: "CompleteAttempt", attemptId, response: kept, now },
      { actor: request.actor },
    );
  });
