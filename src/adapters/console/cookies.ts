/**
 * The console's cookies: `__Host-` names (Secure, Path=/, no Domain: no subdomain can set or
 * read them), HttpOnly, SameSite=Strict. Written as headers rather than through Koa's cookie
 * jar, which refuses Secure cookies when TLS ends at a proxy in front.
 */
export const SESSION_COOKIE = "__Host-its-console-session";
/** The secret of a key just made, sealed, for the one page that shows it (see new-key-flash.ts). */
export const NEW_KEY_COOKIE = "__Host-its-console-new-key";

const COOKIE_VALUE = /^[\w.~-]{1,4096}$/;

export const setCookie = (name: string, value: string, maxAgeSeconds: number): string =>
  `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; Secure; HttpOnly; SameSite=Strict`;

export const clearCookie = (name: string): string => setCookie(name, "", 0);

/** One cookie's value from a Cookie header; values outside the token alphabet count as absent. */
export const readCookie = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined || header.length > 16_384) return undefined;
  for (const part of header.split(";")) {
    const equals = part.indexOf("=");
    if (equals === -1 || part.slice(0, equals).trim() !== name) continue;
    const value = part.slice(equals + 1).trim();
    return COOKIE_VALUE.test(value) ? value : undefined;
  }
  return undefined;
};
