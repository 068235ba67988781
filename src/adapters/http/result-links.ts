import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Result URLs work without the API key (for `<img src>`), so they carry their own proof:
 * an expiry and an HMAC over the result id and that expiry.
 */
export type LinkCheck = "ok" | "expired" | "tampered";

export interface ResultLinks {
  readonly urlFor: (resultId: string, expiresAt: Date) => string;
  readonly check: (resultId: string, expires: string | undefined, signature: string | undefined, now: Date) => LinkCheck;
}

export const hmacResultLinks = (options: { readonly key: Buffer; readonly publicBaseUrl: string }): ResultLinks => {
  const sign = (resultId: string, expires: string) =>
    createHmac("sha256", options.key).update(`${resultId}\n${expires}`).digest();
  return {
    urlFor: (resultId, expiresAt) => {
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      const signature = sign(resultId, expires).toString("base64url");
      return `${options.publicBaseUrl}/api/results/${encodeURIComponent(resultId)}?expires=${expires}&signature=${signature}`;
    },
    check: (resultId, expires, signature, now) => {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return "tampered";
      const presented = Buffer.from(signature, "base64url");
      const expected = sign(resultId, expires);
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return "tampered";
      return Number(expires) * 1000 <= now.getTime() ? "expired" : "ok";
    },
  };
};
