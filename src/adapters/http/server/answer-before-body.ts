import type http from "node:http";
import { holdsBody } from "./expect-continue.ts";

/** The most of a refused upload read (and dropped) to keep its connection from being reset. */
export const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

/**
 * Sends a whole answer (status and headers already set) to a request whose body has not been
 * read: written at once, but ended only when the rest of the upload has arrived and been dropped.
 * A socket closed on unread data is reset (TCP RST), and a client still sending would see a lost
 * connection instead of the answer. Past MAX_DISCARDED_BYTES the connection is cut.
 */
export const answerBeforeBody = (req: http.IncomingMessage, res: http.ServerResponse, body: string | Buffer): void => {
  res.setHeader("Content-Length", Buffer.byteLength(body));
  if (req.complete || holdsBody(req)) {
    res.end(body);
    return;
  }
  res.write(body);
  let discarded = 0;
  const finish = () => res.end();
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BYTES) req.socket.destroy();
  });
  req.once("end", finish);
  req.once("close", finish);
  req.resume();
};
