import { Writable } from "node:stream";
import { Exit } from "effect";
import Koa from "koa";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { consoleRoutes } from "../../src/adapters/console/console-routes.ts";
import { accessLog } from "../../src/adapters/http/middleware/access-log.ts";
import { requestId } from "../../src/adapters/http/middleware/request-id.ts";
import { DependencyUnavailable } from "../../src/ports/errors.ts";

/**
 * The console's failures: an API error that reaches it takes the error catalog's status and
 * headers (an unreachable store: 503 with Retry-After), and a failed request is logged once, on
 * its access-log line, with the cause.
 */
type ConsoleRun = Parameters<typeof consoleRoutes>[0]["run"];

const consoleApp = (failure: unknown) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      lines.push(JSON.parse(chunk.toString("utf8")) as Record<string, unknown>);
      done();
    },
  });
  // Every use case fails as the runtime does when its store cannot be reached.
  const run = (() => Promise.resolve(Exit.fail(failure))) as unknown as ConsoleRun;
  const app = new Koa();
  app.use(requestId());
  app.use(accessLog(pino(sink)));
  app.use(consoleRoutes({ run, publicBaseUrl: "https://console.example.test", cookieKey: Buffer.alloc(32, 7) }).routes());
  return { app, lines };
};

const get = async (app: Koa, path: string) => {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as { port: number };
    const reply = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: "manual" });
    return { status: reply.status, retryAfter: reply.headers.get("retry-after"), body: await reply.text() };
  } finally {
    server.close();
  }
};

describe("console failures", () => {
  it("answers an unreachable store with the catalog's 503 and Retry-After, and logs the request once with its cause", async () => {
    const { app, lines } = consoleApp(new DependencyUnavailable({ dependency: "event store", cause: new Error("connection refused") }));
    const reply = await get(app, "/console/sign-in");
    expect(reply.status).toBe(503);
    expect(reply.retryAfter).toBe("5");
    expect(reply.body).toContain("Temporarily unavailable");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 503, error: "SERVICE_UNAVAILABLE", path: "/console/sign-in" });
    expect(String(lines[0]!["cause"])).toContain("connection refused");
  });
});
