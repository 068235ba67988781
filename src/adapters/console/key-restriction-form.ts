import { parseDuration, parseExpiry } from "../../domain/duration.ts";
import { KEY_SCOPES, type KeyRestrictions } from "../../domain/key-restrictions.ts";

/**
 * The restriction fields of the console's key form, as typed: kept to fill the form again after a
 * refusal. Scopes are one checkbox each (`scope-<name>`): a form keeps only the first of repeated
 * fields. The form marks itself (`restrictions`): a POST without the mark (a form from before the
 * fields existed) makes an unrestricted key, as it always did, while the form itself with no box
 * ticked is refused.
 */
export const RESTRICTIONS_MARK = "restrictions";
export interface KeyRestrictionFields {
  readonly scopes: ReadonlyArray<string>;
  readonly expires: string;
  readonly allowIp: string;
  readonly monthlyLimit: string;
}

export const EMPTY_RESTRICTION_FIELDS: KeyRestrictionFields = { scopes: KEY_SCOPES, expires: "", allowIp: "", monthlyLimit: "" };

export const restrictionFieldsOf = (form: ReadonlyMap<string, string>): KeyRestrictionFields => ({
  scopes: form.has(RESTRICTIONS_MARK) ? KEY_SCOPES.filter((scope) => form.has(`scope-${scope}`)) : KEY_SCOPES,
  expires: (form.get("expires") ?? "").trim(),
  allowIp: (form.get("allow-ip") ?? "").trim(),
  monthlyLimit: (form.get("monthly-limit") ?? "").trim(),
});

/**
 * The restrictions the fields ask for, or the sentence that says which field is wrong. Ranges are
 * checked by the use case (the address port), which names a malformed one the same way.
 */
export const restrictionsOfFields = (fields: KeyRestrictionFields, now: Date): { readonly restrictions: KeyRestrictions } | { readonly error: string } => {
  if (fields.scopes.length === 0) return { error: "Choose at least one operation the key may call." };
  let expiresAt: string | null = null;
  if (fields.expires !== "") {
    const at = parseExpiry(fields.expires, now);
    if (at === undefined) return { error: `“Expires” is not a time or a duration: ${fields.expires} (e.g. 30d, 24h or 2027-01-31T00:00:00Z).` };
    expiresAt = at.toISOString();
  }
  let monthlyLimit: number | null = null;
  if (fields.monthlyLimit !== "") {
    monthlyLimit = Number(fields.monthlyLimit);
    if (!/^\d{1,12}$/.test(fields.monthlyLimit) || monthlyLimit < 1)
      return { error: `“Monthly limit” is a whole number of at least 1, not ${fields.monthlyLimit}.` };
  }
  const ranges = fields.allowIp
    .split(/[\s,]+/)
    .map((range) => range.trim())
    .filter((range) => range !== "");
  return {
    restrictions: {
      scopes: fields.scopes.length === KEY_SCOPES.length ? null : (fields.scopes as KeyRestrictions["scopes"]),
      expiresAt,
      allowedIps: ranges.length === 0 ? null : ranges,
      monthlyLimit,
    },
  };
};

/** A roll's grace as typed (default a day), in milliseconds, or undefined when it is not a duration. */
export const graceOf = (typed: string | undefined): number | undefined => parseDuration((typed ?? "").trim() || "24h");
