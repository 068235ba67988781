/**
 * What a key may do, chosen when it is made (issue 42): the operations it may call, until when,
 * from which addresses, and how many units a month. `null` is "no restriction" throughout, so a
 * key made before restrictions existed reads as the unrestricted key it always was.
 */
export const KEY_SCOPES = ["generate", "ocr", "virtual-tryon", "templates"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface KeyRestrictions {
  /** The operations the key may call; null: every one. */
  readonly scopes: ReadonlyArray<KeyScope> | null;
  /** ISO-8601; from then on the key is treated as deleted. */
  readonly expiresAt: string | null;
  /** CIDR ranges, as the address adapter normalised them; null: any address. */
  readonly allowedIps: ReadonlyArray<string> | null;
  /** The most units this key may spend in a month, within the account's quota. */
  readonly monthlyLimit: number | null;
}

export const UNRESTRICTED: KeyRestrictions = { scopes: null, expiresAt: null, allowedIps: null, monthlyLimit: null };

export const isKeyScope = (value: string): value is KeyScope => (KEY_SCOPES as ReadonlyArray<string>).includes(value);

/** Why these restrictions cannot be recorded, or undefined when they can. */
export const restrictionsProblem = (restrictions: KeyRestrictions, now: Date): string | undefined => {
  const { scopes, expiresAt, allowedIps, monthlyLimit } = restrictions;
  if (scopes !== null) {
    if (scopes.length === 0) return "a key needs at least one scope (leave scopes out for all)";
    const unknown = scopes.find((scope) => !isKeyScope(scope));
    if (unknown !== undefined) return `unknown scope ${unknown} (known: ${KEY_SCOPES.join(", ")})`;
    if (new Set(scopes).size !== scopes.length) return "a scope is named twice";
  }
  if (expiresAt !== null) {
    const time = Date.parse(expiresAt);
    if (Number.isNaN(time)) return `not a time: ${expiresAt}`;
    if (time <= now.getTime()) return `the expiry ${expiresAt} has passed`;
  }
  if (allowedIps !== null && allowedIps.length === 0) return "an allowlist needs at least one range (leave it out for any address)";
  if (monthlyLimit !== null && (!Number.isSafeInteger(monthlyLimit) || monthlyLimit < 1))
    return `a monthly limit is a whole number of at least 1, not ${monthlyLimit}`;
  return undefined;
};

/** Whether the key has expired at `nowMs`: an expired key is refused like a deleted one. */
export const hasExpired = (restrictions: KeyRestrictions, nowMs: number): boolean =>
  restrictions.expiresAt !== null && Date.parse(restrictions.expiresAt) <= nowMs;

/** Whether the key may call an operation of this scope. */
export const permitsScope = (restrictions: KeyRestrictions, scope: KeyScope): boolean => restrictions.scopes === null || restrictions.scopes.includes(scope);

/** The earlier of two expiries, null being "never". */
export const earlierExpiry = (a: string | null, b: string | null): string | null => {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) <= Date.parse(b) ? a : b;
};
