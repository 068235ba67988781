/**
 * API key format: `its_<keyId>_<secret>`. The key id is public (it finds the record); the
 * secret carries 256 bits of randomness and only its keyed hash is ever recorded.
 */
export const API_KEY_PRODUCT_PREFIX = "its";
export const KEY_ID_PATTERN = /^[a-z0-9]{16}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43,128}$/;
const KEY_PATTERN = /^its_([a-z0-9]{16})_([A-Za-z0-9_-]{43,128})$/;

export interface ParsedApiKey {
  readonly keyId: string;
  readonly secret: string;
}

export const formatApiKey = (keyId: string, secret: string): string => {
  if (!KEY_ID_PATTERN.test(keyId) || !SECRET_PATTERN.test(secret)) {
    throw new RangeError("key id or secret outside the key format");
  }
  return `${API_KEY_PRODUCT_PREFIX}_${keyId}_${secret}`;
};

export const parseApiKey = (presented: string): ParsedApiKey | undefined => {
  const match = KEY_PATTERN.exec(presented);
  return match?.[1] && match[2] ? { keyId: match[1], secret: match[2] } : undefined;
};

/** What may be shown of a key after it was made: enough to recognise it, nothing to use. */
export const displayPrefix = (keyId: string): string => `${API_KEY_PRODUCT_PREFIX}_${keyId}`;
