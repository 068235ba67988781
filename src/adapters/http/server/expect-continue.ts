import type http from "node:http";

/**
 * `Expect: 100-continue` lets a client hold its body until the server has looked at the headers.
 * The HTTPS server hands such requests to the app without answering (see servers.ts), so that
 * authentication, the rate limit and admission by memory can refuse an upload before a byte of
 * it is sent; a body reader calls `readyForBody` just before it reads, and only then is the client
 * told to send.
 */
const continued = new WeakSet<http.IncomingMessage>();

const expectsContinue = (req: http.IncomingMessage): boolean => req.headers.expect?.toLowerCase() === "100-continue";

/** Whether the client still holds its body: it waits for 100 Continue, and has not been sent one. */
export const holdsBody = (req: http.IncomingMessage): boolean => expectsContinue(req) && !continued.has(req);

export const readyForBody = (req: http.IncomingMessage, res: http.ServerResponse): void => {
  if (!holdsBody(req) || res.headersSent) return;
  continued.add(req);
  res.writeContinue();
};
