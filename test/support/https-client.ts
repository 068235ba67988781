import https from "node:https";
import http from "node:http";

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

export class HttpsClient {
  readonly agent: https.Agent;
  readonly baseUrl: string;

  constructor(baseUrl: string, ca: Buffer) {
    this.baseUrl = baseUrl;
    this.agent = new https.Agent({ ca, keepAlive: true, maxSockets: 256 });
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.Authorization = `Bearer ${options.key}`;
    let payload: Buffer | undefined;
    if (options.body !== undefined) {
      payload = Buffer.isBuffer(options.body) ? options.body : Buffer.from(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
      headers["Content-Type"] ??= "application/json";
      headers["Content-Length"] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, this.baseUrl), { method, headers, agent: this.agent }, (res) => collect(res).then(resolve, reject));
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** Fetches an absolute URL (e.g. a resultUrl) with no key. */
  get(url: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      https.get(url, { agent: this.agent }, (res) => collect(res).then(resolve, reject)).on("error", reject);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Plain HTTP, for the refusing listener. */
export const plainRequest = (port: number, method: string, path: string, body?: string): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers: body ? { "Content-Type": "application/json" } : {} }, (res) =>
      collect(res).then(resolve, reject),
    );
    req.on("error", reject);
    req.end(body);
  });
