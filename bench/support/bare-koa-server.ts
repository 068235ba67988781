import { randomBytes } from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { Effect } from "effect";
import Koa from "koa";
import { hmacSecretHasher } from "../../src/adapters/security/hmac-secret-hasher.ts";
import { parseApiKey } from "../../src/domain/api-key.ts";
import { SecretHasher } from "../../src/ports/secret-hasher.ts";

/**
 * The baselines: a bare Koa app on the same HTTPS stack (same certificate, same Node), answering
 * a profile-sized JSON body with no authentication, rate limit or event store behind it.
 * With an API key as third argument, `/keyed` also answers, after the least any keyed endpoint
 * must do: parse the Bearer key and check its secret against a keyed hash with the service's own
 * hasher. No routing, logging, rate limit, Effect or store: the ceiling of any keyed route here.
 */
const [certPath, keyPath, apiKey] = process.argv.slice(2);
const app = new Koa();
const body = {
  success: true,
  data: {
    id: "acc_0123456789abcdef",
    email: "bench@example.com",
    name: "bench",
    plan: "pro",
    features: ["generate", "ocr", "virtual-tryon"],
    quota: { limit: 500, used: 0, remaining: 500, period: "2026-11", resetsAt: "2026-12-01T00:00:00.000Z" },
    rateLimit: { perMinute: 10, burst: 15 },
    key: { id: "0123456789abcdef", name: "bench", prefix: "its_0123456789abcdef", createdAt: "2026-11-22T00:00:00.000Z" },
  },
};

const hasher = Effect.runSync(Effect.service(SecretHasher).pipe(Effect.provide(hmacSecretHasher(randomBytes(32)))));
const storedHashes = new Map<string, string>();
const accepted = apiKey === undefined ? undefined : parseApiKey(apiKey);
if (accepted) storedHashes.set(accepted.keyId, hasher.hash(accepted.secret));

app.use((ctx) => {
  if (ctx.path === "/keyed") {
    const presented = parseApiKey(/^Bearer (\S+)$/.exec(ctx.get("Authorization"))?.[1] ?? "");
    const stored = presented && storedHashes.get(presented.keyId);
    if (!presented || !stored || !hasher.verify(presented.secret, stored)) {
      ctx.status = 401;
      ctx.body = { success: false, error: { code: "UNAUTHORIZED", message: "The API key is missing, invalid or deleted." } };
      return;
    }
  }
  ctx.body = body;
});
const server = https.createServer({ cert: fs.readFileSync(certPath!), key: fs.readFileSync(keyPath!) }, app.callback());
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ msg: "listening", httpsPort: (server.address() as AddressInfo).port })}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
