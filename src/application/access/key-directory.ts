import { Context, Effect, Layer, Option } from "effect";
import type { ApiKeyRecord } from "../../domain/account.ts";
import type { PlanId } from "../../domain/plan.ts";
import { Clock } from "../../ports/clock.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import { EventStore, type UndecodableEvent } from "../../ports/event-store.ts";
import { KeyProjection } from "../../ports/projections.ts";
import { catchUpFromStore } from "../event-sourcing/projection-runner.ts";
import { makeKeyUseNotes } from "./key-use-notes.ts";

/**
 * What authentication reads: the key projection, which the bus's notices keep current from the store (see
 * runProjection). A key made elsewhere (the CLI, another instance) is found at once because a
 * miss catches the projection up from the store before refusing.
 */
export interface KeyOwner {
  readonly key: ApiKeyRecord;
  readonly account: { readonly accountId: string; readonly email: string; readonly name: string; readonly plan: PlanId };
}

export interface KeyDirectoryShape {
  /**
   * The active key with this id. `beforeStoreRead` runs only when the answer needs a read of the
   * event store (an id neither remembered nor in the projection): a caller's chance to refuse first.
   */
  readonly findKey: <E = never, R = never>(
    keyId: string,
    beforeStoreRead?: Effect.Effect<void, E, R>,
  ) => Effect.Effect<Option.Option<KeyOwner>, DependencyUnavailable | UndecodableEvent | E, R>;
  /** An admitted request's key was used now: the write to make, when one is due (lastUsedAt, at most once a minute per key). */
  readonly noteUse: (keyId: string) => Effect.Effect<void> | undefined;
}

export class KeyDirectory extends Context.Service<KeyDirectory, KeyDirectoryShape>()("KeyDirectory") {}

/**
 * A key found is remembered this long, so that a busy key costs no projection read per request.
 * A revocation or a plan change still reaches every request within it plus the projection's own
 * lag (at most the 500 ms store poll while the bus is down): inside the 1 s of docs/api-decisions.md.
 */
export const FOUND_KEY_TTL_MS = 200;
/**
 * An id that the store did not know is remembered as unknown this long. Key ids are random, so the
 * id of a key made later was never asked for before it existed: the cache never hides a new key,
 * and a guesser's ids cost one store read each, not one per request.
 */
export const UNKNOWN_KEY_TTL_MS = 10 * 60_000;
const MAX_REMEMBERED_KEYS = 10_000;

export const keyDirectoryLayer = Layer.effect(KeyDirectory)(
  Effect.gen(function* () {
    const projection = yield* KeyProjection;
    const store = yield* EventStore;
    const clock = yield* Clock;
    const catchUp = catchUpFromStore(projection).pipe(Effect.provideService(EventStore, store));
    const remembered = new Map<string, { readonly owner: KeyOwner; readonly until: number }>();
    const unknown = new Map<string, number>();

    const lookup = (keyId: string) =>
      projection.findActiveKey(keyId).pipe(
        Effect.map(
          Option.map(({ key, account }): KeyOwner => ({
            key: {
              keyId: key.keyId,
              name: key.name,
              prefix: key.prefix,
              secretHash: key.secretHash,
              createdAt: key.createdAt,
              restrictions: key.restrictions,
            },
            account: { accountId: account.accountId, email: account.email, name: account.name, plan: account.plan },
          })),
        ),
      );

    // A Map iterates in insertion order: the first entry is the one refreshed longest ago.
    const rememberIn = <V>(map: Map<string, V>, keyId: string, value: V) => {
      map.delete(keyId);
      map.set(keyId, value);
      if (map.size > MAX_REMEMBERED_KEYS) map.delete(map.keys().next().value!);
    };

    return {
      noteUse: makeKeyUseNotes(projection, clock),
      findKey: <E = never, R = never>(keyId: string, beforeStoreRead: Effect.Effect<void, E, R> = Effect.void) =>
        Effect.suspend((): Effect.Effect<Option.Option<KeyOwner>, DependencyUnavailable | UndecodableEvent | E, R> => {
          const now = clock.now().getTime();
          const hit = remembered.get(keyId);
          if (hit !== undefined && hit.until > now) return Effect.succeed(Option.some(hit.owner));
          if ((unknown.get(keyId) ?? 0) > now) return Effect.succeed(Option.none());
          const fromStore = beforeStoreRead.pipe(
            Effect.andThen(catchUp),
            Effect.andThen(lookup(keyId)),
            Effect.tap((found) => Effect.sync(() => Option.isNone(found) && rememberIn(unknown, keyId, now + UNKNOWN_KEY_TTL_MS))),
          );
          return lookup(keyId).pipe(
            Effect.flatMap((found) => (Option.isSome(found) ? Effect.succeed(found) : fromStore)),
            Effect.tap((found) =>
              Effect.sync(() =>
                Option.isSome(found) ? rememberIn(remembered, keyId, { owner: found.value, until: now + FOUND_KEY_TTL_MS }) : remembered.delete(keyId),
              ),
            ),
          );
        }),
    };
  }),
);
