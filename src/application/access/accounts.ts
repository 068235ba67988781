import { Effect } from "effect";
import { type AccountState, accountStream } from "../../domain/account.ts";
import { displayPrefix, formatApiKey } from "../../domain/api-key.ts";
import { echo } from "../../domain/echo.ts";
import type { PlanId } from "../../domain/plan.ts";
import { Clock } from "../../ports/clock.ts";
import { Ids } from "../../ports/ids.ts";
import { SecretHasher } from "../../ports/secret-hasher.ts";
import { CommandRejected } from "../errors.ts";
import { handleCommand, loadState } from "../event-sourcing/command-handler.ts";
import { accountStreamType } from "../event-sourcing/events/account-events.ts";
import { ServiceSettings } from "../settings.ts";
import type { Actor } from "./actor.ts";

/** Account and key administration: what the operator CLI and the console do; `actor` is who does it. */
export const openAccount = (input: { readonly email: string; readonly name: string; readonly plan: PlanId }, actor: Actor) =>
  Effect.gen(function* () {
    const ids = yield* Ids;
    const clock = yield* Clock;
    const accountId = ids.accountId();
    yield* handleCommand(accountStreamType, accountStream(accountId), { type: "OpenAccount", accountId, ...input, now: clock.now() }, { actor });
    return { id: accountId, ...input };
  });

export const changePlan = (accountId: string, plan: PlanId, actor: Actor) =>
  Effect.gen(function* () {
    const clock = yield* Clock;
    yield* handleCommand(accountStreamType, accountStream(accountId), { type: "ChangePlan", plan, now: clock.now() }, { actor });
    return { id: accountId, plan };
  });

export interface CreatedKey {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly createdAt: string;
  /** The only time the full key exists outside the client. */
  readonly key: string;
}

export const createKey = (accountId: string, name: string, actor: Actor) =>
  Effect.gen(function* () {
    const ids = yield* Ids;
    const clock = yield* Clock;
    const hasher = yield* SecretHasher;
    const settings = yield* ServiceSettings;
    const keyId = ids.keyId();
    const secret = ids.keySecret();
    const now = clock.now();
    yield* handleCommand(
      accountStreamType,
      accountStream(accountId),
      {
        type: "IssueApiKey",
        keyId,
        name,
        secretHash: hasher.hash(secret),
        maxActiveKeys: settings.maxKeysPerAccount,
        now,
      },
      { actor },
    );
    return { id: keyId, name, prefix: displayPrefix(keyId), createdAt: now.toISOString(), key: formatApiKey(keyId, secret) } satisfies CreatedKey;
  });

export const deleteKey = (accountId: string, keyId: string, actor: Actor) =>
  Effect.gen(function* () {
    const clock = yield* Clock;
    yield* handleCommand(accountStreamType, accountStream(accountId), { type: "RevokeApiKey", keyId, now: clock.now() }, { actor });
  });

export const getAccount = (accountId: string) =>
  Effect.gen(function* () {
    const { state } = yield* loadState(accountStreamType, accountStream(accountId));
    if (state.status === "none") return yield* new CommandRejected({ code: "ACCOUNT_NOT_FOUND", message: `no account ${echo(accountId)}` });
    return state satisfies AccountState;
  });

export const listKeys = (accountId: string) =>
  getAccount(accountId).pipe(
    Effect.map((account) => [...account.keys.values()].map(({ keyId, name, prefix, createdAt }) => ({ id: keyId, name, prefix, createdAt }))),
  );
