import { Effect, Option } from "effect";
import { parseApiKey } from "../domain/api-key.ts";
import { SecretHasher } from "../ports/secret-hasher.ts";
import { RateLimited, Unauthorized } from "./errors.ts";
import { KeyDirectory, type KeyOwner } from "./key-directory.ts";
import { type RateCheck, recordFailedAuth, refuseThrottledAddress, takeKeyToken } from "./rate-limit.ts";

/** Who is calling: the account and the key it used. */
export type Principal = KeyOwner;

const refused = new Unauthorized({ message: "The API key is missing, invalid or deleted." });

/**
 * From an `Authorization` header value to the key's owner, or Unauthorized. `beforeStoreRead`
 * runs before an unknown key id would cost an event-store read (see KeyDirectory).
 */
export const authenticate = <E = never, R = never>(authorization: string | undefined, beforeStoreRead?: Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    const presented = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
    const parsed = presented === undefined ? undefined : parseApiKey(presented);
    if (!parsed) return yield* refused;
    const directory = yield* KeyDirectory;
    const hasher = yield* SecretHasher;
    const owner = yield* directory.findKey(parsed.keyId, beforeStoreRead);
    if (Option.isNone(owner) || !hasher.verify(parsed.secret, owner.value.key.secretHash)) return yield* refused;
    return owner.value satisfies Principal;
  });

/**
 * The gate of every keyed request, in the order of docs/api-decisions.md: the key (401, or 429 once an
 * address keeps failing), then one token from the key's bucket. The caller reports `rate` in
 * headers whether or not the token was granted.
 */
export const admitRequest = (authorization: string | undefined, clientAddress: string) =>
  // An address that has used up its failed attempts is refused before its guess costs a store read.
  authenticate(authorization, refuseThrottledAddress(clientAddress)).pipe(
    Effect.catchTag("Unauthorized", (unauthorized) =>
      recordFailedAuth(clientAddress).pipe(
        Effect.flatMap((decision): Effect.Effect<never, Unauthorized | RateLimited> =>
          Effect.fail(decision.allowed ? unauthorized : new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds })),
        ),
      ),
    ),
    Effect.flatMap((principal) =>
      takeKeyToken(principal.key.keyId, principal.account.plan).pipe(Effect.map((rate): { principal: Principal; rate: RateCheck } => ({ principal, rate }))),
    ),
  );
