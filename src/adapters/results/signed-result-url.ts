import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";

/**
 * Result URLs work without the API key (for `<img src>`), so they carry their own proof: an
 * HMAC-SHA256 over the result id and the expiry, keyed by a server secret. The query string is
 * `expires=<unix seconds>&signature=<base64url>`.
 */
export type ResultUrlVerdict = "ok" | "tampered" | "expired";

export interface ResultUrlSigner {
  /** The query string (without "?") that proves access to `resultId` until `expiresAt`. */
  readonly sign: (resultId: string, expiresAt: Date) => string;
  /** Checks a request's query for `resultId` at `now`; any missing, malformed or forged part is "tampered". */
  readonly verify: (resultId: string, query: URLSearchParams | string, now: Date) => ResultUrlVerdict;
}

/** Keeps these signatures from being valid for anything else signed with the same secret. */
const CONTEXT = "its-result-url-v1";

const MIN_SECRET_BYTES = 32;

export const makeResultUrlSigner = (secret: string | Uint8Array): ResultUrlSigner => {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
  if (key.length < MIN_SECRET_BYTES) throw new Error(`the result URL secret must be at least ${MIN_SECRET_BYTES} bytes`);

  // A KeyObject made once: a raw Buffer key is re-imported on every createHmac call.
  const keyObject = createSecretKey(key);
  const mac = (resultId: string, expires: number) => createHmac("sha256", keyObject).update(`${CONTEXT}\n${resultId}\n${expires}`).digest();

  return {
    sign: (resultId, expiresAt) => {
      const expires = Math.floor(expiresAt.getTime() / 1000);
      return new URLSearchParams({ expires: String(expires), signature: mac(resultId, expires).toString("base64url") }).toString();
    },
    verify: (resultId, query, now) => {
      const params = typeof query === "string" ? new URLSearchParams(query) : query;
      const expiresText = params.get("expires") ?? "";
      const signature = params.get("signature") ?? "";
      if (!/^\d{1,12}$/.test(expiresText) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return "tampered";
      const expires = Number(expiresText);
      // Compare the text, not decoded bytes: base64url ignores the last character's low bits,
      // and only the one canonical spelling of a signature is valid.
      const given = Buffer.from(signature, "ascii");
      const expected = Buffer.from(mac(resultId, expires).toString("base64url"), "ascii");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "tampered";
      return now.getTime() >= expires * 1000 ? "expired" : "ok";
    },
  };
};
