import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface MetricsServer {
  readonly port: number;
  readonly close: () => Promise<void>;
}

/**
 * `GET /metrics` in the Prometheus text format on its own plain-HTTP listener, apart from the
 * public HTTPS port: scrapers sit on the operator's network, and nothing here needs a key.
 */
export const startMetricsServer = async (options: { readonly registry: Registry; readonly host: string; readonly port: number }): Promise<MetricsServer> => {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics") {
      response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Only /metrics is served here.\n");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end("GET /metrics\n");
      return;
    }
    options.registry.metrics().then(
      (text) => response.writeHead(200, { "Content-Type": options.registry.contentType }).end(request.method === "HEAD" ? undefined : text),
      () => response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("metrics could not be collected\n"),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
};
