/**
 * How this service proves itself to NATS: nothing (a server without auth), a user and password or
 * a token (in NATS_URL, or NATS_TOKEN), or an nkey whose seed is in a file (NATS_NKEY_SEED_FILE,
 * read when connecting, so the seed never passes through the environment).
 */
export type NatsAuth =
  | { readonly kind: "none" }
  | { readonly kind: "user"; readonly user: string; readonly password: string }
  | { readonly kind: "token"; readonly token: string }
  | { readonly kind: "nkey"; readonly seedFile: string };

const sameAuth = (a: NatsAuth, b: NatsAuth) => JSON.stringify(a) === JSON.stringify(b);

/**
 * NATS_URL (comma-separated servers) split into servers without credentials, safe to log, and the
 * credentials they carried: `nats://user:password@host:4222` or `nats://token@host:4222`
 * (percent-encoded). Every server that names credentials must name the same. Errors never repeat
 * the URL: it may hold a password.
 */
export const splitNatsUrl = (natsUrl: string): { readonly servers: string; readonly auth: NatsAuth } => {
  let auth: NatsAuth = { kind: "none" };
  const servers = natsUrl.split(",").map((entry, index) => {
    const url = URL.parse(entry.trim());
    if (url === null || !/^(nats|tls):$/.test(url.protocol) || url.hostname === "") {
      throw new RangeError(`NATS_URL: server ${index + 1} is not a nats:// or tls:// URL with a host`);
    }
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    const named: NatsAuth =
      user === "" && password === "" ? { kind: "none" } : password === "" ? { kind: "token", token: user } : { kind: "user", user, password };
    if (named.kind !== "none") {
      if (auth.kind !== "none" && !sameAuth(auth, named))
        throw new RangeError("NATS_URL: the servers name different credentials; give them once, the same on every server");
      auth = named;
    }
    return `${url.protocol}//${url.host}`;
  });
  return { servers: servers.join(","), auth };
};
