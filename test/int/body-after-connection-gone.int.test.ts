import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import Koa from "koa";
import type { Logger } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { accessLog } from "../../src/adapters/http/middleware/access-log.ts";
import { errorBoundary } from "../../src/adapters/http/middleware/error-boundary.ts";
import { readJsonObject } from "../../src/adapters/http/middleware/json-body.ts";
import { requestId } from "../../src/adapters/http/middleware/request-id.ts";

/**
 * Issue 24, case 9: a request whose connection Node cut for bad chunk framing, before the app began
 * to read its body (the app was still authenticating it, or waiting for an engine). The body
 * reader then finds a stream that has gone (once a 500); that is the client's 400,
 * logged at info, not a 500 at error level. The app's own middleware on a real socket.
 */
const lines: Array<{ level: string; line: { status: number; error?: string } }> = [];
const logger = {
  info: (line: { status: number }) => lines.push({ level: "info", line }),
  error: (line: { status: number }) => lines.push({ level: "error", line }),
} as unknown as Logger;
let server: http.Server;

beforeAll(async () => {
  const app = new Koa();
  // In the app's order (http-app.ts): every error body names the request id.
  app.use(requestId());
  app.use(accessLog(logger));
  app.use(errorBoundary());
  // Whatever comes before the body is read takes long enough for the connection to go first.
  app.use(async (ctx, next) => {
    if (!ctx.req.destroyed) await new Promise((resolve) => ctx.req.once("close", resolve));
    await next();
  });
  app.use(async (ctx) => {
    await readJsonObject(ctx, 1024, false);
  });
  server = http.createServer(app.callback());
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it("answers a body whose connection is gone before it is read as the client's 400, logged at info", async () => {
  const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
  socket.on("error", () => undefined);
  socket.resume();
  socket.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":1\r\nzz\r\n');
  await once(socket, "close");
  for (let waited = 0; lines.length === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(lines).toEqual([{ level: "info", line: expect.objectContaining({ status: 400, error: "INVALID_REQUEST" }) }]);
});
