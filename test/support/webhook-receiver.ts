import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/**
 * A local webhook receiver over plain HTTP (targets allowed by WEBHOOK_ALLOW_INSECURE_TARGETS):
 * it keeps every request and answers each with the next status of `answers` (then 200).
 */
export const startWebhookReceiver = async () => {
  const received: Array<ReceivedWebhook> = [];
  const answers: Array<number> = [];
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      response.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const waitFor = async (count: number, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (received.length < count) {
      if (Date.now() > deadline) throw new Error(`the receiver got ${received.length} of ${count} webhooks in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return received.slice(0, count);
  };
  return {
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    received,
    /** Statuses the next requests get, in order. */
    answer: (...statuses: ReadonlyArray<number>) => void answers.push(...statuses),
    waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
