import { Context, Effect, Layer, Option, Schedule, Stream } from "effect";
import { accountDecider, ACCOUNT_STREAM_PREFIX, type AccountEvent, type AccountState, type ApiKeyRecord } from "../domain/account.ts";
import type { PlanId } from "../domain/plan.ts";
import type { DependencyUnavailable } from "../ports/errors.ts";
import { EventStore, type RecordedEvent } from "../ports/event-store.ts";

/**
 * The read model authentication uses: every account and its active keys, kept in memory and
 * fed by the event store. A key made elsewhere (the CLI, another instance) is found at once
 * because a miss catches up before refusing; a revocation arrives with the follow feed.
 */
export interface KeyOwner {
  readonly key: ApiKeyRecord;
  readonly account: { readonly accountId: string; readonly email: string; readonly name: string; readonly plan: PlanId };
}

export interface KeyDirectoryShape {
  readonly findKey: (keyId: string) => Effect.Effect<Option.Option<KeyOwner>, DependencyUnavailable>;
  /** The position of the last event applied: projections compare themselves with it. */
  readonly position: () => number;
}

export class KeyDirectory extends Context.Service<KeyDirectory, KeyDirectoryShape>()("KeyDirectory") {}

const PAGE = 1_000;

export const keyDirectoryLayer = Layer.effect(KeyDirectory)(
  Effect.gen(function* () {
    const store = yield* EventStore;
    const accounts = new Map<string, AccountState>();
    const accountOfKey = new Map<string, string>();
    let position = 0;

    const apply = (event: RecordedEvent): void => {
      if (event.globalPosition <= position) return;
      position = event.globalPosition;
      if (!event.streamName.startsWith(ACCOUNT_STREAM_PREFIX)) return;
      const accountEvent = { type: event.type, data: event.data } as unknown as AccountEvent;
      const accountId = event.streamName.slice(ACCOUNT_STREAM_PREFIX.length);
      accounts.set(accountId, accountDecider.evolve(accounts.get(accountId) ?? accountDecider.initialState(), accountEvent));
      if (accountEvent.type === "ApiKeyIssued") accountOfKey.set(accountEvent.data.keyId, accountId);
    };

    const catchUp = Effect.gen(function* () {
      for (;;) {
        const page = yield* store.readAll({ after: position, limit: PAGE });
        page.forEach(apply);
        if (page.length < PAGE) return;
      }
    });

    const lookup = (keyId: string): Option.Option<KeyOwner> => {
      const accountId = accountOfKey.get(keyId);
      const state = accountId === undefined ? undefined : accounts.get(accountId);
      const key = state?.status === "open" ? state.keys.get(keyId) : undefined;
      if (!key || state?.status !== "open") return Option.none();
      const { email, name, plan } = state;
      return Option.some({ key, account: { accountId: state.accountId, email, name, plan } });
    };

    yield* catchUp;
    // Re-read the position on every (re)start so a restarted feed resumes where it stopped.
    yield* Stream.unwrap(Effect.sync(() => store.follow({ after: position }))).pipe(
      Stream.runForEach((event) => Effect.sync(() => apply(event))),
      Effect.tapError((error) => Effect.logWarning("key directory feed interrupted; retrying", error)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped,
    );

    return {
      findKey: (keyId) =>
        Effect.suspend(() => {
          const found = lookup(keyId);
          return Option.isSome(found) ? Effect.succeed(found) : catchUp.pipe(Effect.map(() => lookup(keyId)));
        }),
      position: () => position,
    };
  }),
);
