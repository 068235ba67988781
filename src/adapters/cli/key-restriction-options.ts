import { InvalidArgumentError } from "commander";
import { parseDuration, parseExpiry } from "../../domain/duration.ts";
import { isKeyScope, KEY_SCOPES, type KeyRestrictions, type KeyScope } from "../../domain/key-restrictions.ts";
import { makeBlockListAddressRanges } from "../security/block-list-address-ranges.ts";

/**
 * The options of `itsctl key create` and `key roll` that describe a key's restrictions, parsed as
 * commander reads them: a value that cannot be one is refused before anything runs, named, with
 * exit 2 (a usage error, as opposed to 1 for a command the service refused).
 */
const usageError = (message: string): InvalidArgumentError => {
  const error = new InvalidArgumentError(message);
  error.exitCode = 2;
  return error;
};

const list = (value: string): ReadonlyArray<string> =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

export const scopesArgument = (value: string): ReadonlyArray<KeyScope> => {
  const scopes = list(value);
  const unknown = scopes.filter((scope) => !isKeyScope(scope));
  if (unknown.length > 0) throw usageError(`unknown scope ${unknown.join(", ")} (known: ${KEY_SCOPES.join(", ")})`);
  if (scopes.length === 0) throw usageError(`name at least one scope (known: ${KEY_SCOPES.join(", ")})`);
  return [...new Set(scopes)] as ReadonlyArray<KeyScope>;
};

const ranges = makeBlockListAddressRanges();

export const allowIpArgument = (value: string): ReadonlyArray<string> => {
  const given = list(value);
  const malformed = given.filter((range) => ranges.normalize(range) === undefined);
  if (malformed.length > 0) throw usageError(`not an IP address range: ${malformed.join(", ")} (e.g. 203.0.113.0/24 or 2001:db8::/32)`);
  if (given.length === 0) throw usageError("name at least one range");
  return given.map((range) => ranges.normalize(range)!);
};

export const expiresArgument = (value: string): string => {
  const at = parseExpiry(value, new Date());
  if (at === undefined) throw usageError(`not a time or a duration: ${value} (e.g. 2027-01-31T00:00:00Z, 30d, 24h, 4s)`);
  if (at.getTime() <= Date.now()) throw usageError(`the expiry ${at.toISOString()} has passed`);
  return at.toISOString();
};

export const monthlyLimitArgument = (value: string): number => {
  const limit = Number(value);
  if (!/^\d{1,12}$/.test(value.trim()) || !Number.isSafeInteger(limit) || limit < 1) throw usageError(`not a whole number of units of at least 1: ${value}`);
  return limit;
};

export const durationArgument = (value: string): number => {
  const ms = parseDuration(value);
  if (ms === undefined) throw usageError(`not a duration: ${value} (e.g. 4s, 30m, 24h, 30d)`);
  return ms;
};

export interface KeyRestrictionOptions {
  readonly scopes?: ReadonlyArray<KeyScope>;
  readonly expires?: string;
  readonly allowIp?: ReadonlyArray<string>;
  readonly monthlyLimit?: number;
}

export const restrictionsOf = (options: KeyRestrictionOptions): KeyRestrictions => ({
  scopes: options.scopes ?? null,
  expiresAt: options.expires ?? null,
  allowedIps: options.allowIp ?? null,
  monthlyLimit: options.monthlyLimit ?? null,
});
