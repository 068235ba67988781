import http from "node:http";
import https from "node:https";
import { makeOpenApiValidator } from "./openapi-validator.ts";

/** A small HTTPS client for tests: trusts the service's self-signed certificate, keeps connections alive. */
export interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response JSON freely
  readonly json: any;
}

export interface RequestOptions {
  readonly key?: string;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as is. */
  readonly body?: unknown;
  /** Sends the body chunked (no Content-Length), in pieces of this many bytes. */
  readonly chunkBytes?: number;
}

const collect = (res: http.IncomingMessage): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("error", reject);
    res.on("end", () => {
      const body = Buffer.concat(chunks);
      let json: unknown;
      if ((res.headers["content-type"] ?? "").includes("json") && body.length > 0) json = JSON.parse(body.toString());
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
    });
  });

type Validator = ReturnType<typeof makeOpenApiValidator>;

/**
 * Every reply is checked against the OpenAPI document the service serves (openapi-validator.ts)
 * before a test sees it: a response the document does not describe rejects the request.
 */
export class HttpsClient {
  readonly agent: https.Agent;
  readonly baseUrl: string;
  readonly #ca: Buffer;
  #contract: Promise<Validator> | undefined;

  constructor(baseUrl: string, ca: Buffer) {
    this.baseUrl = baseUrl;
    this.#ca = ca;
    this.agent = new https.Agent({ ca, keepAlive: true, maxSockets: 256 });
  }

  /** The validator of the served document, fetched once. */
  contract(): Promise<Validator> {
    // Behind a trusted proxy (TRUST_PROXY) the request must say, as a proxy would, that it came over HTTPS; otherwise these are ignored.
    this.#contract ??= this.send("GET", "/api/openapi.json", { headers: { "X-Forwarded-For": "127.0.0.1", "X-Forwarded-Proto": "https" } }).then((reply) => {
      if (reply.status !== 200) throw new Error(`GET /api/openapi.json answered ${reply.status}`);
      return makeOpenApiValidator(reply.json);
    });
    return this.#contract;
  }

  async #checked(method: string, path: string, reply: Reply): Promise<Reply> {
    (await this.contract())({
      method,
      path,
      status: reply.status,
      contentType: String(reply.headers["content-type"] ?? ""),
      json: reply.json,
      headers: reply.headers,
    });
    return reply;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    return this.#checked(method, path, await this.send(method, path, options));
  }

  /** Fetches an absolute URL (e.g. a resultUrl) with no key. */
  async get(url: string): Promise<Reply> {
    const reply = await new Promise<Reply>((resolve, reject) => {
      https.get(url, { agent: this.agent }, (res) => collect(res).then(resolve, reject)).on("error", reject);
    });
    const { pathname, search } = new URL(url);
    return this.#checked("GET", pathname + search, reply);
  }

  /** A request whose reply is not checked against the document (the document itself). */
  send(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.Authorization = `Bearer ${options.key}`;
    let payload: Buffer | undefined;
    if (options.body !== undefined) {
      payload = Buffer.isBuffer(options.body) ? options.body : Buffer.from(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
      headers["Content-Type"] ??= "application/json";
      if (options.chunkBytes === undefined) headers["Content-Length"] = String(payload.length);
    }
    const attempt = (retried: boolean): Promise<Reply> =>
      new Promise((resolve, reject) => {
        // The retry goes out on a connection of its own: the pool may hold more sockets the server closed at the same moment.
        const agent = retried ? new https.Agent({ ca: this.#ca }) : this.agent;
        const req = https.request(new URL(path, this.baseUrl), { method, headers, agent }, (res) => collect(res).then(resolve, reject));
        req.on("error", (error: NodeJS.ErrnoException) => {
          // A kept-alive socket the server closed (its keep-alive timeout) as this request went out on
          // it: the server never read the request, so it is sent once more on a new socket (Node's
          // documented remedy). A reset of a new socket is the server's doing and stays an error.
          if (!retried && req.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE")) resolve(attempt(true));
          else reject(error);
        });
        const size = options.chunkBytes;
        if (payload !== undefined && size !== undefined) for (let at = 0; at < payload.length; at += size) req.write(payload.subarray(at, at + size));
        else if (payload !== undefined) req.write(payload);
        req.end();
      });
    return attempt(false);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Plain HTTP, for the refusing listener. */
export const plainRequest = (port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method, path, headers: { ...(body ? { "Content-Type": "application/json" } : {}), ...headers } },
      (res) => collect(res).then(resolve, reject),
    );
    req.on("error", reject);
    req.end(body);
  });
