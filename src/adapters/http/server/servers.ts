import { randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type Koa from "koa";
import { errorBody } from "../api/respond.ts";
import { errorResponseOf } from "../errors/error-catalog.ts";
import { ShuttingDown } from "../errors/protocol-errors.ts";
import { logRequest } from "../middleware/access-log.ts";
import { SECURITY_HEADERS } from "../middleware/security-headers.ts";
import { holdsBody } from "./expect-continue.ts";
import type { Logger } from "./logger.ts";
import { answerClientError } from "./malformed-request.ts";
import { plainHttpHandler } from "./plain-http-refusal.ts";
import { defaultPublicBaseUrl } from "./public-base-url.ts";
import type { TlsCredentials } from "./tls-credentials.ts";

export interface RunningServers {
  readonly publicBaseUrl: string;
  readonly httpsPort: number;
  readonly httpPort: number;
  /**
   * Graceful stop: from now on every new request gets 503 (with `Connection: close`); resolves when
   * the requests already admitted have been answered, or at `graceMs` (whatever is still running
   * then is cut), and the listeners are closed.
   */
  readonly drain: (graceMs: number) => Promise<void>;
}

const listen = (server: http.Server | https.Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });

const closeServer = (server: http.Server | https.Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });

/**
 * A request that arrives while the service stops: a load balancer sends it (and the next ones)
 * elsewhere. It is answered once its body is read (and dropped): a connection closed on an unread
 * upload is reset, and the client would see a lost connection instead of the 503. (Unlike
 * answer-before-body.ts, the answer waits: a keep-alive client that reads a 503 with
 * `Connection: close` while still sending loses the requests it queued on that connection.)
 */
const refuseWhileDraining = (logger: Logger, req: http.IncomingMessage, res: http.ServerResponse) => {
  const refused = errorResponseOf(new ShuttingDown());
  const answer = () => {
    const requestId = randomUUID();
    const body = JSON.stringify(errorBody(refused, requestId));
    res.writeHead(refused.status, {
      ...SECURITY_HEADERS,
      ...refused.headers,
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "X-Request-Id": requestId,
      Connection: "close",
    });
    res.end(body);
    // No path: the app's own log redacts paths that hold secrets, and this one knows no routes.
    logRequest(logger, {
      requestId,
      method: req.method,
      status: refused.status,
      overload: refused.overload,
      ip: req.socket.remoteAddress,
      error: refused.code,
    });
  };
  // A client that waits for 100 Continue holds its body: it is refused from its headers.
  if (req.complete || holdsBody(req)) return answer();
  req.once("end", answer);
  req.resume();
};

/** The HTTPS listener serving the app, and the plain-HTTP one that only refuses. */
export const startServers = async (options: {
  /** Builds the app once the public base URL is known (it depends on the port actually bound). */
  readonly makeApp: (publicBaseUrl: string) => Koa;
  /** Where requests refused outside the app (plain HTTP, while draining) are logged, as the app logs its own. */
  readonly logger: Logger;
  readonly tls: TlsCredentials;
  readonly host: string;
  readonly port: number;
  readonly httpPort: number;
  readonly publicBaseUrl: string | undefined;
  readonly maxConnections: number;
  readonly tlsHandshakeTimeoutMs: number;
}): Promise<RunningServers> => {
  const secure = https.createServer({ cert: options.tls.cert, key: options.tls.key, minVersion: "TLSv1.2", handshakeTimeout: options.tlsHandshakeTimeoutMs });
  // Sockets are a finite resource: past the cap a new connection is closed at once instead of starving the rest.
  secure.maxConnections = options.maxConnections;
  // Bounded slowloris exposure: headers within 20 s, a whole request (large images) within 2 min.
  secure.headersTimeout = 20_000;
  secure.requestTimeout = 120_000;
  secure.keepAliveTimeout = 10_000;
  const httpsPort = await listen(secure, options.port, options.host);
  const publicBaseUrl = options.publicBaseUrl ?? defaultPublicBaseUrl(options.host, httpsPort);
  const app = options.makeApp(publicBaseUrl).callback();
  let draining = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  // The request each connection is serving, for what it cannot parse after its headers (malformed-request.ts).
  const serving = new WeakMap<object, { req: http.IncomingMessage; res: http.ServerResponse }>();
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    // Refusals count too: the drain waits until they are answered.
    inFlight += 1;
    const socket = req.socket;
    serving.set(socket, { req, res });
    res.once("close", () => {
      inFlight -= 1;
      if (serving.get(socket)?.res === res) serving.delete(socket);
      if (inFlight === 0) drained?.();
    });
    if (draining) return refuseWhileDraining(options.logger, req, res);
    void app(req, res);
  };
  secure.on("request", handle);
  // `Expect: 100-continue` is not answered here: the app sends 100 when it is about to read the
  // body (expect-continue.ts), so a refusal comes before the client sends it.
  secure.on("checkContinue", handle);
  secure.on(
    "clientError",
    answerClientError(options.logger, (socket) => serving.get(socket)),
  );
  const plain = http.createServer(plainHttpHandler(new URL(publicBaseUrl), options.logger));
  plain.headersTimeout = 10_000;
  plain.requestTimeout = 10_000;
  const httpPort = await listen(plain, options.httpPort, options.host);
  return {
    publicBaseUrl,
    httpsPort,
    httpPort,
    drain: async (graceMs) => {
      draining = true;
      const plainClosed = closeServer(plain);
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, graceMs).unref();
        });
      }
      const secureClosed = closeServer(secure);
      // Whatever is left is idle keep-alive connections (or work past the grace period).
      secure.closeAllConnections();
      await Promise.all([secureClosed, plainClosed]);
    },
  };
};
