import { Context, Effect, Layer, Option } from "effect";
import type { ApiKeyRecord } from "../domain/account.ts";
import type { PlanId } from "../domain/plan.ts";
import { Clock } from "../ports/clock.ts";
import type { DependencyUnavailable } from "../ports/errors.ts";
import { EventStore } from "../ports/event-store.ts";
import { KeyProjection } from "../ports/projections.ts";
import { catchUpFromStore } from "./projection-runner.ts";

/**
 * What authentication reads: the key projection, which the bus keeps current (see
 * runProjection). A key made elsewhere (the CLI, another instance) is found at once because a
 * miss catches the projection up from the store before refusing.
 */
export interface KeyOwner {
  readonly key: ApiKeyRecord;
  readonly account: { readonly accountId: string; readonly email: string; readonly name: string; readonly plan: PlanId };
}

export interface KeyDirectoryShape {
  readonly findKey: (keyId: string) => Effect.Effect<Option.Option<KeyOwner>, DependencyUnavailable>;
}

export class KeyDirectory extends Context.Service<KeyDirectory, KeyDirectoryShape>()("KeyDirectory") {}

/**
 * A key found is remembered this long, so that a busy key costs no projection read per request.
 * A revocation or a plan change still reaches every request within it plus the projection's own
 * lag (at most the 500 ms store poll while the bus is down): inside decisions.md's 1 s.
 */
export const FOUND_KEY_TTL_MS = 200;
const MAX_REMEMBERED_KEYS = 10_000;

export const keyDirectoryLayer = Layer.effect(KeyDirectory)(
  Effect.gen(function* () {
    const projection = yield* KeyProjection;
    const store = yield* EventStore;
    const clock = yield* Clock;
    const catchUp = catchUpFromStore(projection).pipe(Effect.provideService(EventStore, store));
    const remembered = new Map<string, { readonly owner: KeyOwner; readonly until: number }>();

    const lookup = (keyId: string) =>
      projection.findActiveKey(keyId).pipe(
        Effect.map(
          Option.map(({ key, account }): KeyOwner => ({
            key: { keyId: key.keyId, name: key.name, prefix: key.prefix, secretHash: key.secretHash, createdAt: key.createdAt },
            account: { accountId: account.accountId, email: account.email, name: account.name, plan: account.plan },
          })),
        ),
      );

    const remember = (keyId: string, owner: KeyOwner, now: number) => {
      remembered.delete(keyId);
      remembered.set(keyId, { owner, until: now + FOUND_KEY_TTL_MS });
      // A Map iterates in insertion order: the first entry is the one refreshed longest ago.
      if (remembered.size > MAX_REMEMBERED_KEYS) remembered.delete(remembered.keys().next().value!);
    };

    return {
      findKey: (keyId) =>
        Effect.suspend(() => {
          const now = clock.now().getTime();
          const hit = remembered.get(keyId);
          if (hit !== undefined && hit.until > now) return Effect.succeed(Option.some(hit.owner));
          return lookup(keyId).pipe(
            Effect.flatMap((found) => (Option.isSome(found) ? Effect.succeed(found) : catchUp.pipe(Effect.andThen(lookup(keyId))))),
            Effect.tap((found) =>
              Effect.sync(() => (Option.isSome(found) ? remember(keyId, found.value, now) : remembered.delete(keyId))),
            ),
          );
        }),
    };
  }),
);
