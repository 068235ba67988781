import { Context, Effect, Option } from "effect";
import { parseApiKey } from "../../domain/api-key.ts";
import { hasExpired, type KeyScope, permitsScope } from "../../domain/key-restrictions.ts";
import { AddressRanges } from "../../ports/address-ranges.ts";
import { Clock } from "../../ports/clock.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { UndecodableEvent } from "../../ports/event-store.ts";
import { RateLimiter } from "../../ports/rate-limiter.ts";
import { SecretHasher } from "../../ports/secret-hasher.ts";
import { InsufficientPermissions, IpNotAllowed, RateLimited, Unauthorized } from "../errors.ts";
import { ratePolicyOf, ServiceSettings } from "../settings.ts";
import { bearerCredential } from "./bearer-credential.ts";
import { FAILED_AUTH_POLICY, failedAuthBucket, keyBucket, type RateCheck, refuseThrottledAddress } from "./failed-auth-throttle.ts";
import { KeyDirectory, type KeyOwner } from "./key-directory.ts";

/** Who is calling: the account and the key it used. */
export type Principal = KeyOwner;

const refused = new Unauthorized({ message: "The API key is missing, invalid or deleted." });

/** The key id and secret an `Authorization` header presents, if it presents one well-formed. */
const presentedKey = (authorization: string | undefined) => {
  const presented = bearerCredential(authorization);
  return presented === undefined ? undefined : parseApiKey(presented);
};

/** What admits a request: who called, and the key's bucket after its token was taken. */
export interface Admitted {
  readonly principal: Principal;
  readonly rate: RateCheck;
}

type AdmissionServices = KeyDirectory | SecretHasher | RateLimiter | ServiceSettings | AddressRanges | Clock;
type AdmissionError = Unauthorized | IpNotAllowed | InsufficientPermissions | RateLimited | DependencyUnavailable | UndecodableEvent;
type Admission = Effect.Effect<Admitted, AdmissionError, RateLimiter>;

/**
 * The gate of every keyed request, in the order of docs/api.md: the key (401, an expired one too, or
 * 429 once an address keeps failing), its restrictions (the client's address 403 IP_NOT_ALLOWED,
 * the operation's `scope` 403 INSUFFICIENT_PERMISSIONS), then one token from the key's bucket. The
 * caller reports `rate` in headers whether or not the token was granted. An address that has used
 * up its failed attempts is refused before its guess costs a store read. Steps on the fiber's
 * services rather than a generator: it runs on every keyed request, where each nested step cost a
 * visible share of its CPU.
 */
export const admitRequest = (
  authorization: string | undefined,
  clientAddress: string,
  scope?: KeyScope,
): Effect.Effect<Admitted, AdmissionError, AdmissionServices> =>
  Effect.contextWith((services: Context.Context<AdmissionServices>): Admission => {
    const limiter = Context.get(services, RateLimiter);
    const refuse = (): Admission =>
      Effect.flatMap(limiter.take(failedAuthBucket(clientAddress), FAILED_AUTH_POLICY), (decision) =>
        Effect.fail(decision.allowed ? refused : new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds })),
      );
    const parsed = presentedKey(authorization);
    if (parsed === undefined) return refuse();
    const directory = Context.get(services, KeyDirectory);
    return Effect.flatMap(directory.findKey(parsed.keyId, refuseThrottledAddress(clientAddress)), (owner): Admission => {
      if (Option.isNone(owner) || !Context.get(services, SecretHasher).verify(parsed.secret, owner.value.key.secretHash)) return refuse();
      const principal = owner.value;
      const { restrictions } = principal.key;
      // An expired key is a deleted one: the same 401, and the same count against the address.
      if (restrictions.expiresAt !== null && hasExpired(restrictions, Context.get(services, Clock).now().getTime())) return refuse();
      if (restrictions.allowedIps !== null && !Context.get(services, AddressRanges).contains(restrictions.allowedIps, clientAddress)) {
        return Effect.fail(new IpNotAllowed({ address: clientAddress }));
      }
      if (scope !== undefined && !permitsScope(restrictions, scope)) {
        return Effect.fail(new InsufficientPermissions({ message: `This API key's scopes do not include ${scope}.` }));
      }
      const policy = ratePolicyOf(Context.get(services, ServiceSettings), principal.account.plan);
      const admitted = Effect.map(limiter.take(keyBucket(principal.key.keyId), policy), (decision) => ({ principal, rate: { policy, decision } }));
      const note = directory.noteUse(principal.key.keyId);
      return note === undefined ? admitted : Effect.andThen(note, admitted);
    });
  });
