import net from "node:net";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Hostile case 5: what one client can hold. A connection past the cap is closed at once; a TCP
 * connection that never finishes its TLS handshake is dropped after TLS_HANDSHAKE_TIMEOUT_MS (not
 * Node's 120 s); a one-image route refuses a body sized for two images before reading it.
 */
let service: ServiceProcess;
let key: string;

beforeAll(async () => {
  service = await startService({ env: { MAX_CONNECTIONS: "4", TLS_HANDSHAKE_TIMEOUT_MS: "400", MAX_IMAGE_BYTES: String(1024 * 1024) } });
  key = (await provisionAccount(service.env, "enterprise")).keys[0]!.key;
});
afterAll(async () => service?.stop());

/** Resolves with how long the server took to close a socket it was handed, or "open" after `waitMs`. */
const closedWithin = (socket: net.Socket, waitMs: number) =>
  new Promise<number | "open">((resolve) => {
    const started = performance.now();
    const timer = setTimeout(() => resolve("open"), waitMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
    socket.on("error", () => undefined);
  });

const tlsConnect = () =>
  new Promise<tls.TLSSocket>((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port: service.httpsPort, rejectUnauthorized: false }, () => resolve(socket));
    socket.once("error", reject);
  });

describe("connection limits", () => {
  it("drops a connection that never starts its TLS handshake", async () => {
    const socket = net.connect(service.httpsPort, "127.0.0.1");
    const closed = await closedWithin(socket, 3000);
    expect(closed).not.toBe("open");
    expect(closed).toBeLessThan(2000);
  });

  it("closes connections past MAX_CONNECTIONS at once, and serves again when they go", async () => {
    service.client.close();
    const held = await Promise.all(Array.from({ length: 4 }, tlsConnect));
    const extra = net.connect(service.httpsPort, "127.0.0.1");
    expect(await closedWithin(extra, 2000)).not.toBe("open");
    held.forEach((socket) => socket.destroy());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await tlsConnect();
    again.destroy();
  });
});

describe("body limits per route", () => {
  it("a one-image route refuses, before reading it, a body that only a try-on may send", async () => {
    const bytes = Math.ceil((1024 * 1024 * 4) / 3) * 2;
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = tls.connect({ host: "127.0.0.1", port: service.httpsPort, rejectUnauthorized: false }, () => {
        // Headers only: the 413 must come without a byte of the promised body.
        socket.write(
          `POST /api/ocr HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
        );
      });
      let text = "";
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\r\n\r\n") && text.includes("}")) {
          socket.destroy();
          resolve({ status: Number(text.split(" ")[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) });
        }
      });
      socket.on("error", reject);
    });
    expect(reply.status).toBe(413);
    expect(reply.body).toContain("PAYLOAD_TOO_LARGE");
  });
});
