import type { KeyRestrictions } from "./key-restrictions.ts";

/** A key's restrictions in words, each named (the audit, itsctl's text output); "unrestricted" when none. */
export const describeRestrictions = ({ scopes, expiresAt, allowedIps, monthlyLimit }: KeyRestrictions): string => {
  const parts = [
    scopes === null ? undefined : `scopes ${scopes.join(",")}`,
    expiresAt === null ? undefined : `expires ${expiresAt}`,
    allowedIps === null ? undefined : `allowed IPs ${allowedIps.join(",")}`,
    monthlyLimit === null ? undefined : `monthly limit ${monthlyLimit}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? "unrestricted" : parts.join("; ");
};
