import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOGGED_PATH_MAX_CHARACTERS } from "../../src/adapters/http/middleware/access-log.ts";
import { ECHO_MAX_CHARACTERS } from "../../src/domain/echo.ts";
import { plainRequest } from "../support/https-client.ts";
import { photoJpeg } from "../support/image-fixtures.ts";
import { metricsPortOf, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 24, case 9: what a client that writes broken HTTP or odd JSON gets. A body Node cannot
 * frame is the API's 400 (with its error body), logged and counted as a 4xx, never a 5xx that
 * would page someone; a valid body is read as JSON.parse reads it at any depth; ids and paths a
 * client sends are quoted cut, in error messages and in the log.
 */
const OPERATOR_TOKEN = "operator-token-for-tests-0123456789abcdef";
let service: ServiceProcess;
let key: string;
let metricsPort: number;

beforeAll(async () => {
  service = await startService({ env: { METRICS_PORT: "0", OPERATOR_TOKEN } });
  key = (await provisionAccount(service.env, "enterprise")).keys[0]!.key;
  metricsPort = metricsPortOf(service);
});
afterAll(async () => service?.stop());

interface RawReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly json: { success: boolean; error: { code: string; message: string } } | undefined;
}

/** Writes `parts` on one TLS connection, 150 ms apart (the first ones reach the app before the last); reads until the server closes. */
const rawExchange = (parts: ReadonlyArray<string>, options: { halfClose?: boolean } = {}) =>
  new Promise<RawReply>((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port: service.httpsPort, rejectUnauthorized: false }, () => {
      parts.forEach((part, index) =>
        setTimeout(() => {
          socket.write(part);
          if (index === parts.length - 1 && options.halfClose === true) socket.end();
        }, index * 150),
      );
    });
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      const [head = "", body = ""] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      resolve({ status: Number(statusLine.split(" ")[1]), headers, json: body === "" ? undefined : JSON.parse(body) });
    });
    setTimeout(() => reject(new Error(`no close within 10 s; got ${JSON.stringify(text)}`)), 10_000).unref();
  });

const headersOf = (path: string, framing: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

/** The access-log line of a request. The log is written in 4 KiB pieces: cheap requests push it out. */
const logLineOf = async (requestId: string) => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const line = service
      .logs()
      .split("\n")
      .find((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"status"'));
    if (line) return JSON.parse(line) as { level: number; status: number; path?: string; error?: string };
    await Promise.all(Array.from({ length: 4 }, () => service.client.request("GET", "/healthz")));
  }
  throw new Error(`no log line for ${requestId}`);
};

/** Requests answered so far whose labels match `labels` (http_server_request_duration_seconds_count), over every route. */
const answered = async (labels: RegExp) => {
  const text = (await plainRequest(metricsPort, "GET", "/metrics")).body.toString();
  return text
    .split("\n")
    .filter((line) => line.startsWith("http_server_request_duration_seconds_count{") && labels.test(line))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
};
const serverErrors = () => answered(/status_code="5\d\d"/);
const generate400s = () => answered(/route="\/api\/generate".*status_code="400"/);

const expectMalformed = async (reply: RawReply) => {
  expect(reply.status).toBe(400);
  expect(reply.headers.connection).toBe("close");
  expect(reply.headers["strict-transport-security"]).toBeDefined();
  expect(reply.json).toMatchObject({ success: false, error: { code: "INVALID_REQUEST" } });
  const line = await logLineOf(reply.headers["x-request-id"]!);
  expect(line).toMatchObject({ status: 400, level: 30 });
};

describe("a body Node cannot frame", () => {
  it("bad chunk framing after a good chunk: the API's 400, logged at info as a 400, no 5xx counted", async () => {
    const [errorsBefore, badBefore] = [await serverErrors(), await generate400s()];
    const reply = await rawExchange([`${headersOf("/api/generate", "Transfer-Encoding: chunked")}5\r\n{"a":\r\n`, "zz\r\n"]);
    await expectMalformed(reply);
    expect(await serverErrors()).toBe(errorsBefore);
    expect(await generate400s()).toBe(badBefore + 1);
  });

  it("bad chunk framing in the first packet", async () => {
    const reply = await rawExchange([`${headersOf("/api/ocr", "Transfer-Encoding: chunked")}5\r\n{"a":1\r\nzz\r\n`]);
    await expectMalformed(reply);
  });

  it("a body that ends before its Content-Length", async () => {
    const reply = await rawExchange([`${headersOf("/api/generate", "Content-Length: 100")}{"image":`], { halfClose: true });
    await expectMalformed(reply);
  });

  it("a header line Node cannot parse: the same 400, logged by the server", async () => {
    const reply = await rawExchange(["GET /api/user/profile HTTP/1.1\r\nHost: localhost\r\nBroken header\r\n\r\n"]);
    await expectMalformed(reply);
  });
});

describe("JSON bodies", () => {
  it("reads valid JSON nested 5,000 deep beside a 64 KiB image as JSON.parse does: 200", async () => {
    const image = (await photoJpeg(900, 700)).toString("base64");
    expect(image.length).toBeGreaterThanOrEqual(64 * 1024);
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const body = `{"image":"${image}","template":"grayscale","templateType":"filter","note":${deep}}`;
    expect(() => JSON.parse(body)).not.toThrow();
    const reply = await service.client.request("POST", "/api/generate", { key, body });
    expect(reply.json.error?.message).toBeUndefined();
    expect(reply.status).toBe(200);
  });
});

describe("ids and paths a client sends are cut", () => {
  it("the audit's 404 quotes an id to the echo limit, and the access log a path to its limit", async () => {
    const id = "x".repeat(5000);
    const reply = await service.client.request("GET", `/api/audit/accounts/${id}`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(reply.status).toBe(404);
    expect(reply.json.error.message).toContain("x".repeat(ECHO_MAX_CHARACTERS));
    expect(reply.json.error.message).not.toContain("x".repeat(ECHO_MAX_CHARACTERS + 1));
    const line = await logLineOf(String(reply.headers["x-request-id"]));
    expect(line.path!.startsWith(`/api/audit/accounts/${"x".repeat(LOGGED_PATH_MAX_CHARACTERS - 20)}`)).toBe(true);
    expect(line.path!.length).toBeLessThan(LOGGED_PATH_MAX_CHARACTERS + 40);
  });
});
