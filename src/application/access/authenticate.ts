import { Context, Effect, Option } from "effect";
import { parseApiKey } from "../../domain/api-key.ts";
import type { DependencyUnavailable } from "../../ports/errors.ts";
import type { UndecodableEvent } from "../../ports/event-store.ts";
import { RateLimiter } from "../../ports/rate-limiter.ts";
import { SecretHasher } from "../../ports/secret-hasher.ts";
import { RateLimited, Unauthorized } from "../errors.ts";
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

type AdmissionServices = KeyDirectory | SecretHasher | RateLimiter | ServiceSettings;
type AdmissionError = Unauthorized | RateLimited | DependencyUnavailable | UndecodableEvent;
type Admission = Effect.Effect<Admitted, AdmissionError, RateLimiter>;

/**
 * The gate of every keyed request, in the order of docs/api-decisions.md: the key (401, or 429 once an
 * address keeps failing), then one token from the key's bucket. The caller reports `rate` in
 * headers whether or not the token was granted. An address that has used up its failed attempts
 * is refused before its guess costs a store read. Steps on the fiber's services rather than a
 * generator: it runs on every keyed request, where each nested step cost a visible share of its CPU.
 */
export const admitRequest = (authorization: string | undefined, clientAddress: string): Effect.Effect<Admitted, AdmissionError, AdmissionServices> =>
  Effect.contextWith((services: Context.Context<AdmissionServices>): Admission => {
    const limiter = Context.get(services, RateLimiter);
    const refuse = (): Admission =>
      Effect.flatMap(limiter.take(failedAuthBucket(clientAddress), FAILED_AUTH_POLICY), (decision) =>
        Effect.fail(decision.allowed ? refused : new RateLimited({ retryAfterSeconds: decision.retryAfterSeconds })),
      );
    const parsed = presentedKey(authorization);
    if (parsed === undefined) return refuse();
    return Effect.flatMap(Context.get(services, KeyDirectory).findKey(parsed.keyId, refuseThrottledAddress(clientAddress)), (owner): Admission => {
      if (Option.isNone(owner) || !Context.get(services, SecretHasher).verify(parsed.secret, owner.value.key.secretHash)) return refuse();
      const principal = owner.value;
      const policy = ratePolicyOf(Context.get(services, ServiceSettings), principal.account.plan);
      return Effect.map(limiter.take(keyBucket(principal.key.keyId), policy), (decision) => ({ principal, rate: { policy, decision } }));
    });
  });
