import { Context, Effect, Layer, Result } from "effect";
import { Clock } from "../../ports/clock.ts";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { EventStore, NO_STREAM, type UndecodableEvent } from "../../ports/event-store.ts";
import { Ids } from "../../ports/ids.ts";
import { type Actor, ACTOR_METADATA_KEY } from "../access/actor.ts";
import { storeIdentityEventCodec } from "./events/store-identity-events.ts";

/**
 * A store names itself once, in a well-known stream, so that what lives outside it (the bus's
 * stream, checkpoints and durable consumers; the projections under DATA_DIR) can say which store
 * it was made from, and is never taken for another store's. The first process to start on a
 * store appends the event; every later one reads it.
 */
export const STORE_IDENTITY_STREAM = "store-identity";
/** Whoever starts first on a new store, server or itsctl, names it on the service's behalf. */
const BY_THE_SERVICE: Actor = { kind: "service", task: "store identity" };

/**
 * The identity: the id the store was given and the global position where it holds that event. A
 * copy made by `itsctl store migrate` keeps the event; if the copy numbers its events differently
 * (KurrentDB), the position makes it another identity, because positions recorded outside the
 * store no longer mean the same events.
 */
export const storeIdentity: Effect.Effect<string, DependencyUnavailable | UndecodableEvent, EventStore | Ids | Clock> = Effect.gen(function* () {
  const store = yield* EventStore;
  let [first] = yield* store.readStream(STORE_IDENTITY_STREAM);
  if (first === undefined) {
    const event = { type: "StoreIdentified", data: { storeId: (yield* Ids).uuid(), at: (yield* Clock).now().toISOString() } } as const;
    // NO_STREAM: of several processes starting at once on a new store, one appends; the others read its event.
    yield* store
      .appendToStream(STORE_IDENTITY_STREAM, [storeIdentityEventCodec.encode(event, { [ACTOR_METADATA_KEY]: BY_THE_SERVICE })], { expectedRevision: NO_STREAM })
      .pipe(Effect.catchTag("ConcurrencyConflict", () => Effect.void));
    [first] = yield* store.readStream(STORE_IDENTITY_STREAM);
  }
  const decoded = first === undefined ? undefined : storeIdentityEventCodec.decodeResult(first);
  if (first === undefined || decoded === undefined || Result.isFailure(decoded)) {
    return yield* new DependencyUnavailable({ dependency: `event store: its first event in stream ${STORE_IDENTITY_STREAM} is not StoreIdentified` });
  }
  return `${decoded.success.data.storeId}@${first.globalPosition}`;
});

/** The identity of the store this process runs on, read (or recorded) once at start. */
export class StoreIdentity extends Context.Service<StoreIdentity, { readonly identity: string }>()("StoreIdentity") {}

export const storeIdentityLayer = Layer.effect(StoreIdentity)(Effect.map(storeIdentity, (identity) => ({ identity })));
