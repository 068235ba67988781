/**
 * Connection URLs carry secrets (NATS_URL, DATABASE_URL, KURRENTDB_URL: `scheme://user:password@`,
 * `scheme://token@`, `?password=`). Whatever text may hold one — an error message, a log line —
 * passes through here before it is written: the password or token becomes `***`; users and hosts
 * stay, since they are what an operator needs to see. A scan, not a regular expression, so that
 * its time is linear in the text whatever the text is.
 */
const MASK = "***";
const SECRET_PARAMETERS = ["password", "pass", "token", "sslpassword", "secret"];

/** Where the URL's authority ends: at the first "/", "?", "#", white space, quote or end of text. */
const authorityEnd = (text: string, from: number): number => {
  let end = from;
  while (end < text.length && !"/?#\"'<>` \t\r\n".includes(text[end]!)) end++;
  return end;
};

const maskUserInfo = (text: string): string => {
  let out = "";
  let copied = 0;
  for (let at = text.indexOf("://"); at !== -1; at = text.indexOf("://", at + 3)) {
    const start = at + 3;
    const end = authorityEnd(text, start);
    const userInfoEnd = text.lastIndexOf("@", end - 1);
    if (userInfoEnd < start) continue;
    const userInfo = text.slice(start, userInfoEnd);
    const colon = userInfo.indexOf(":");
    out += text.slice(copied, start) + (colon === -1 ? MASK : `${userInfo.slice(0, colon)}:${MASK}`);
    copied = userInfoEnd;
  }
  return out + text.slice(copied);
};

const maskParameters = (text: string): string => {
  let masked = text;
  for (const name of SECRET_PARAMETERS) {
    let out = "";
    let copied = 0;
    const lower = masked.toLowerCase();
    for (let at = lower.indexOf(`${name}=`); at !== -1; at = lower.indexOf(`${name}=`, at + 1)) {
      const before = lower[at - 1];
      if (before !== "?" && before !== "&") continue;
      const start = at + name.length + 1;
      let end = start;
      while (end < masked.length && !"&#\"'<>` \t\r\n".includes(masked[end]!)) end++;
      out += masked.slice(copied, start) + MASK;
      copied = end;
    }
    masked = out + masked.slice(copied);
  }
  return masked;
};

export const maskUrlSecrets = (text: string): string => maskParameters(maskUserInfo(text));
