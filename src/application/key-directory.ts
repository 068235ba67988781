import { Context, Effect, Layer, Option } from "effect";
import type { ApiKeyRecord } from "../domain/account.ts";
import type { PlanId } from "../domain/plan.ts";
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

export const keyDirectoryLayer = Layer.effect(KeyDirectory)(
  Effect.gen(function* () {
    const projection = yield* KeyProjection;
    const store = yield* EventStore;
    const catchUp = catchUpFromStore(projection).pipe(Effect.provideService(EventStore, store));

    const lookup = (keyId: string) =>
      projection.findActiveKey(keyId).pipe(
        Effect.map(
          Option.map(({ key, account }): KeyOwner => ({
            key: { keyId: key.keyId, name: key.name, prefix: key.prefix, secretHash: key.secretHash, createdAt: key.createdAt },
            account: { accountId: account.accountId, email: account.email, name: account.name, plan: account.plan },
          })),
        ),
      );

    return {
      findKey: (keyId) =>
        lookup(keyId).pipe(Effect.flatMap((found) => (Option.isSome(found) ? Effect.succeed(found) : catchUp.pipe(Effect.andThen(lookup(keyId)))))),
    };
  }),
);
