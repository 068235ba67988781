import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type Koa from "koa";
import { plainHttpHandler } from "./plain-http-refusal.ts";
import type { TlsCredentials } from "./tls-credentials.ts";

export interface RunningServers {
  readonly publicBaseUrl: string;
  readonly httpsPort: number;
  readonly httpPort: number;
  readonly close: () => Promise<void>;
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

/** The HTTPS listener serving the app, and the plain-HTTP one that only refuses. */
export const startServers = async (options: {
  /** Builds the app once the public base URL is known (it depends on the port actually bound). */
  readonly makeApp: (publicBaseUrl: string) => Koa;
  readonly tls: TlsCredentials;
  readonly host: string;
  readonly port: number;
  readonly httpPort: number;
  readonly publicBaseUrl: string | undefined;
}): Promise<RunningServers> => {
  const secure = https.createServer({ cert: options.tls.cert, key: options.tls.key, minVersion: "TLSv1.2" });
  // Bounded slowloris exposure: headers within 20 s, a whole request (large images) within 2 min.
  secure.headersTimeout = 20_000;
  secure.requestTimeout = 120_000;
  secure.keepAliveTimeout = 10_000;
  const httpsPort = await listen(secure, options.port, options.host);
  const host = options.host.includes(":") ? `[${options.host}]` : options.host === "0.0.0.0" ? "localhost" : options.host;
  const publicBaseUrl = options.publicBaseUrl ?? `https://${host}:${httpsPort}`;
  secure.on("request", options.makeApp(publicBaseUrl).callback());
  const plain = http.createServer(plainHttpHandler(new URL(publicBaseUrl)));
  plain.headersTimeout = 10_000;
  plain.requestTimeout = 10_000;
  const httpPort = await listen(plain, options.httpPort, options.host);
  return {
    publicBaseUrl,
    httpsPort,
    httpPort,
    close: async () => {
      await Promise.all([closeServer(secure), closeServer(plain)]);
    },
  };
};
