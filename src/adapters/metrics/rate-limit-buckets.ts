/**
 * The buckets the application keeps, by key prefix, and which of its calls turn the bucket's "no"
 * into a 429: a key's bucket when its token is taken; the failed-authentication bucket both when
 * it is peeked at (an unknown key from a throttled address) and when a failure is taken from it;
 * the console's sign-in buckets when the token a password check costs is taken.
 * The rest of the bucket key (a key id, an address, an email) never becomes a label.
 */
export const RATE_LIMIT_BUCKETS = [
  { prefix: "key:", label: "api_key", refusesAt: ["take"] },
  { prefix: "auth-failures:", label: "failed_auth", refusesAt: ["take", "peek"] },
  { prefix: "console-sign-in:", label: "console_sign_in", refusesAt: ["take"] },
] as const;

export const RATE_LIMIT_BUCKET_LABELS = RATE_LIMIT_BUCKETS.map((bucket) => bucket.label);
