import { Effect, Option } from "effect";
import type { RecordedResponse, ResponseReference } from "../../domain/idempotent-request.ts";
import { ChainCrypto } from "../../ports/chain-crypto.ts";
import { Clock } from "../../ports/clock.ts";
import { Ids } from "../../ports/ids.ts";
import { ResultStore } from "../../ports/result-store.ts";
import { IdempotentResponseGone } from "../errors.ts";

/** A response to keep for an Idempotency-Key: its status and JSON body, as the client got them. */
export interface ResponseToKeep {
  readonly status: number;
  readonly body: object;
}

/** A response to send again: its status and the JSON text of its body, byte for byte as first sent. */
export interface ReplayedResponse {
  readonly status: number;
  readonly json: string;
}

const CONTENT_TYPE = "application/json";

/**
 * Keeps the body in the result store until the key expires, outside the permanent log (issue 24):
 * the log gets its reference and SHA-256 only. A body the store cannot take is not retried: the
 * reference stands, and a repeat gets 410 rather than a second run (and a second charge).
 */
export const keepResponse = (response: ResponseToKeep, expiresAt: Date) =>
  Effect.gen(function* () {
    const json = JSON.stringify(response.body);
    const bodyRef = (yield* Ids).uuid();
    yield* (yield* ResultStore)
      .put({ resultId: bodyRef, bytes: new TextEncoder().encode(json), contentType: CONTENT_TYPE, expiresAt })
      .pipe(Effect.catchTag("DependencyUnavailable", (error) => Effect.logWarning("idempotent response not kept: a repeat will get 410", error)));
    return { status: response.status, bodyRef, bodySha256: (yield* ChainCrypto).digest(json) } satisfies ResponseReference;
  });

/**
 * The kept response, checked against the digest the log holds; gone (expired, deleted, altered):
 * IdempotentResponseGone, never a second run. Events from before issue 24 carry the body itself.
 */
export const replayResponse = (response: RecordedResponse) =>
  Effect.gen(function* () {
    if ("body" in response) return { status: response.status, json: JSON.stringify(response.body) } satisfies ReplayedResponse;
    const found = yield* (yield* ResultStore).get(response.bodyRef, (yield* Clock).now());
    const json = Option.isSome(found) ? new TextDecoder().decode(found.value.bytes) : undefined;
    if (json === undefined || (yield* ChainCrypto).digest(json) !== response.bodySha256) return yield* new IdempotentResponseGone();
    return { status: response.status, json } satisfies ReplayedResponse;
  });
