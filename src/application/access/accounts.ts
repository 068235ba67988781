import { Effect } from "effect";
import { type AccountState, accountStream, activeKeys } from "../../domain/account.ts";
import { displayPrefix, formatApiKey } from "../../domain/api-key.ts";
import { echo } from "../../domain/echo.ts";
import { type KeyRestrictions, UNRESTRICTED } from "../../domain/key-restrictions.ts";
import type { PlanId } from "../../domain/plan.ts";
import { AddressRanges } from "../../ports/address-ranges.ts";
import { Clock } from "../../ports/clock.ts";
import { Ids } from "../../ports/ids.ts";
import { KeyProjection } from "../../ports/projections.ts";
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
  readonly restrictions: KeyRestrictions;
  /** The only time the full key exists outside the client. */
  readonly key: string;
}

const invalidRestrictions = (message: string) => new CommandRejected({ code: "INVALID_RESTRICTIONS", message });

/** The allowlist as recorded: each range normalised, or the first that is not a range, named. */
const normalizedRanges = (ranges: ReadonlyArray<string> | null) =>
  Effect.flatMap(AddressRanges, (addresses) => {
    if (ranges === null) return Effect.succeed(null);
    const normalized: Array<string> = [];
    for (const range of ranges) {
      const one = addresses.normalize(range);
      if (one === undefined) return Effect.fail(invalidRestrictions(`not an IP address range: ${echo(range)} (e.g. 203.0.113.0/24 or 2001:db8::/32)`));
      normalized.push(one);
    }
    return Effect.succeed(normalized);
  });

/** `restrictions`: what the key may do (issue 42); its allowed ranges are checked and normalised here, the rest by the decider. */
export const createKey = (accountId: string, name: string, actor: Actor, requested: KeyRestrictions = UNRESTRICTED) =>
  Effect.gen(function* () {
    const ids = yield* Ids;
    const clock = yield* Clock;
    const hasher = yield* SecretHasher;
    const settings = yield* ServiceSettings;
    const restrictions: KeyRestrictions = { ...requested, allowedIps: yield* normalizedRanges(requested.allowedIps) };
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
        restrictions,
        maxActiveKeys: settings.maxKeysPerAccount,
        now,
      },
      { actor },
    );
    return { id: keyId, name, prefix: displayPrefix(keyId), createdAt: now.toISOString(), restrictions, key: formatApiKey(keyId, secret) } satisfies CreatedKey;
  });

/** The default grace of a roll: a day for every client to take the new key. */
export const DEFAULT_ROLL_GRACE_MS = 24 * 3_600_000;

/** A new key with the old one's name and restrictions, shown once; the old one works until the grace ends. */
export const rollKey = (accountId: string, keyId: string, graceMs: number, actor: Actor) =>
  Effect.gen(function* () {
    const ids = yield* Ids;
    const clock = yield* Clock;
    const hasher = yield* SecretHasher;
    const newKeyId = ids.keyId();
    const secret = ids.keySecret();
    const now = clock.now();
    const command = { type: "RollApiKey", keyId, newKeyId, secretHash: hasher.hash(secret), graceMs, now } as const;
    const { events } = yield* handleCommand(accountStreamType, accountStream(accountId), command, { actor });
    const rolled = events.find((event) => event.type === "ApiKeyRolled");
    // The decider answers a roll with exactly this event or a rejection.
    if (rolled === undefined) return yield* Effect.die(new Error("a roll recorded no ApiKeyRolled"));
    const { name, restrictions, oldKeyExpiresAt } = rolled.data;
    return {
      id: newKeyId,
      name,
      prefix: displayPrefix(newKeyId),
      createdAt: now.toISOString(),
      restrictions,
      key: formatApiKey(newKeyId, secret),
      rolledFrom: { id: keyId, expiresAt: oldKeyExpiresAt },
    } satisfies CreatedKey & { readonly rolledFrom: { readonly id: string; readonly expiresAt: string } };
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

/**
 * The account's working keys (neither deleted nor expired) from its stream, with their restrictions,
 * and when each was last used from the key projection (noted at most once a minute per key).
 */
export const listKeys = (accountId: string) =>
  Effect.gen(function* () {
    const account = yield* getAccount(accountId);
    const now = (yield* Clock).now();
    const { value: projected } = yield* (yield* KeyProjection).keysOf(accountId);
    const lastUsed = new Map(projected.keys.map((key) => [key.keyId, key.lastUsedAt]));
    return activeKeys(account, now).map(({ keyId, name, prefix, createdAt, restrictions }) => ({
      id: keyId,
      name,
      prefix,
      createdAt,
      scopes: restrictions.scopes,
      expiresAt: restrictions.expiresAt,
      allowedIps: restrictions.allowedIps,
      monthlyLimit: restrictions.monthlyLimit,
      lastUsedAt: lastUsed.get(keyId) ?? null,
    }));
  });
