import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * A new key's secret travels from the POST that made it to the page that shows it (POST, then
 * redirect, then GET: a reload never makes or shows a key again) in a cookie sealed with
 * AES-256-GCM under a server key, bound to the session, living one minute, cleared when shown.
 * Any instance can open it; the secret never rests on the server.
 */
export interface NewKeyFlash {
  readonly keyId: string;
  readonly name: string;
  readonly key: string;
}

export const NEW_KEY_FLASH_SECONDS = 60;

export const sealNewKey = (cookieKey: Buffer, sessionId: string, flash: NewKeyFlash, now: Date): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", cookieKey, iv).setAAD(Buffer.from(sessionId));
  const plain = JSON.stringify({ ...flash, until: now.getTime() + NEW_KEY_FLASH_SECONDS * 1000 });
  const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString("base64url")).join(".");
};

export const openNewKey = (cookieKey: Buffer, sessionId: string, value: string, now: Date): NewKeyFlash | undefined => {
  const [iv, tag, sealed] = value.split(".").map((part) => Buffer.from(part, "base64url"));
  if (iv?.length !== 12 || tag?.length !== 16 || sealed === undefined) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", cookieKey, iv).setAAD(Buffer.from(sessionId)).setAuthTag(tag);
    const parsed = JSON.parse(Buffer.concat([decipher.update(sealed), decipher.final()]).toString("utf8")) as NewKeyFlash & { until: number };
    return parsed.until > now.getTime() ? { keyId: parsed.keyId, name: parsed.name, key: parsed.key } : undefined;
  } catch {
    return undefined;
  }
};
