import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import Koa from "koa";

/**
 * The baseline: a bare Koa app on the same HTTPS stack (same certificate, same Node), answering
 * a profile-sized JSON body with no authentication, rate limit or event store behind it.
 */
const [certPath, keyPath] = process.argv.slice(2);
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
app.use((ctx) => {
  ctx.body = body;
});
const server = https.createServer({ cert: fs.readFileSync(certPath!), key: fs.readFileSync(keyPath!) }, app.callback());
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ msg: "listening", httpsPort: (server.address() as AddressInfo).port })}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
