import { randomUUID } from "node:crypto";
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { InvalidRequest } from "../../../application/errors.ts";
import { errorBody } from "../api/respond.ts";
import { errorResponseOf } from "../errors/error-catalog.ts";
import { logRequest } from "../middleware/access-log.ts";
import { SECURITY_HEADERS } from "../middleware/security-headers.ts";
import type { Logger } from "./logger.ts";

/** The request a socket is serving now, if any (servers.ts keeps track). */
export type RequestOn = (socket: Duplex) => { readonly req: IncomingMessage; readonly res: ServerResponse } | undefined;

/** Node's own statuses for the errors that are not a malformed request (headers too large, too slow). */
const NODE_STATUS: Readonly<Record<string, number>> = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 };

/** How long the answer may take to leave before the connection is cut anyway. */
const ANSWER_FLUSH_MS = 5_000;

/**
 * Node's `clientError`: what it cannot parse (bad chunk framing, a body that ends before its
 * Content-Length, a broken header). Node's default writes a bare 400 and cuts the connection; here
 * a malformed request gets the API's 400 with its error body, where a response can still be written
 * (no part of another one is on the wire), then the connection is closed. Anything else Node reports
 * here (a failed TLS handshake, a broken connection) only closes the connection. A request the app is
 * already handling is logged there, as a 4xx: its body reader sees the connection go (error-boundary.ts).
 * One the app never saw is logged here.
 */
export const answerClientError =
  (logger: Logger, requestOn: RequestOn) =>
  (error: Error & { readonly code?: string; readonly reason?: string }, socket: Duplex): void => {
    const current = requestOn(socket);
    // A TLS handshake that failed or a connection that broke has no HTTP to answer, as in Node's default.
    const parsing = error.code?.startsWith("HPE_") === true || error.code === "ERR_HTTP_REQUEST_TIMEOUT";
    if (!parsing || !socket.writable || current?.res.headersSent === true) {
      socket.destroy();
      return;
    }
    const nodeStatus = NODE_STATUS[error.code ?? ""];
    const refused = errorResponseOf(new InvalidRequest({ message: `The request is malformed: ${error.reason ?? error.code ?? "unreadable"}.`, details: [] }));
    const status = nodeStatus ?? refused.status;
    const requestId = String(current?.res.getHeader("X-Request-Id") ?? randomUUID());
    const body = nodeStatus === undefined ? JSON.stringify(errorBody(refused, requestId)) : "";
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      ...(body === "" ? [] : ["Content-Type: application/json; charset=utf-8"]),
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      ...Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`),
      "Connection: close",
    ];
    socket.end(`${head.join("\r\n")}\r\n\r\n${body}`, () => socket.destroy());
    // A client that does not read its answer does not keep the connection.
    setTimeout(() => socket.destroy(), ANSWER_FLUSH_MS).unref();
    if (current === undefined)
      logRequest(logger, {
        requestId,
        status,
        ip: (socket as { remoteAddress?: string }).remoteAddress,
        error: nodeStatus === undefined ? refused.code : error.code,
      });
  };
