import { Writable } from "node:stream";
import { Exit } from "effect";
import Koa from "koa";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { consoleRoutes } from "../../src/adapters/console/console-routes.ts";
import { accessLog } from "../../src/adapters/http/middleware/access-log.ts";
import { requestId } from "../../src/adapters/http/middleware/request-id.ts";
import { DependencyUnavailable, EngineBusy } from "../../src/ports/errors.ts";

/**
 * The console's failures: an API error that reaches it takes the error catalog's status and
 * headers (an unreachable store: 503 with Retry-After), and a failed request is logged once, on
 * its access-log line, with the cause.
 */
type ConsoleRun = Parameters<typeof consoleRoutes>[0]["run"];

/** Each use case's exit in turn; every one after the list fails with the last. */
const consoleApp = (...exits: ReadonlyArray<Exit.Exit<unknown, unknown>>) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      lines.push(JSON.parse(chunk.toString("utf8")) as Record<string, unknown>);
      done();
    },
  });
  let calls = 0;
  const run = (() => Promise.resolve(exits[Math.min(calls++, exits.length - 1)])) as unknown as ConsoleRun;
  const app = new Koa();
  app.use(requestId());
  app.use(accessLog(pino(sink)));
  app.use(consoleRoutes({ run, publicBaseUrl: "https://console.example.test", cookieKey: Buffer.alloc(32, 7) }).routes());
  return { app, lines };
};

const get = async (app: Koa, path: string, init: RequestInit = {}) => {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as { port: number };
    const reply = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: "manual", ...init });
    return { status: reply.status, retryAfter: reply.headers.get("retry-after"), body: await reply.text() };
  } finally {
    server.close();
  }
};

describe("console failures", () => {
  it("answers an unreachable store with the catalog's 503 and Retry-After, and logs the request once with its cause", async () => {
    // Every use case fails as the runtime does when its store cannot be reached.
    const { app, lines } = consoleApp(Exit.fail(new DependencyUnavailable({ dependency: "event store", cause: new Error("connection refused") })));
    const reply = await get(app, "/console/sign-in");
    expect(reply.status).toBe(503);
    expect(reply.retryAfter).toBe("5");
    expect(reply.body).toContain("Temporarily unavailable");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 503, error: "SERVICE_UNAVAILABLE", path: "/console/sign-in" });
    expect(String(lines[0]!["cause"])).toContain("connection refused");
  });

  it("answers a template preview the engine has no room for with its 503 and Retry-After, not a 500", async () => {
    const session = { accountId: "acc_1", sessionId: "s1", csrfToken: "token" };
    const { app, lines } = consoleApp(Exit.succeed(session), Exit.fail(new EngineBusy({ retryAfterSeconds: 2 })));
    const reply = await get(app, "/console/templates/preview", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: "token", design: '{"name":"a","canvas":{"width":16,"height":16,"background":"#000000","format":"png"},"layers":[]}' }),
    });
    expect(reply.status).toBe(503);
    expect(reply.retryAfter).toBe("2");
    expect(reply.body).toContain("The engine is at capacity");
    expect(lines[0]).toMatchObject({ status: 503, error: "SERVICE_UNAVAILABLE", path: "/console/templates/preview" });
  });
});
