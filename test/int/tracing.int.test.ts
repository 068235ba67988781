import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeLogger } from "../../src/adapters/http/server/logger.ts";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { createKey, openAccount } from "../../src/application/access/accounts.ts";
import { loadConfig } from "../../src/config.ts";
import { type HttpService, startHttpService } from "../../src/http-service.ts";
import { type Observability, observabilityFor } from "../../src/observability.ts";
import { HttpsClient } from "../support/https-client.ts";
import { photoJpeg } from "../support/image-fixtures.ts";
import { makeDataDir, provisionAccount, startService } from "../support/service-process.ts";

const byTest = { kind: "service", task: "observability test" } as const;

/**
 * Issue 16: one span per request, with child spans for the event store, the engine and the result
 * store. In process, the service's own layers and HTTPS app export to the SDK's in-memory
 * exporter; then the real service process exports over OTLP/HTTP and logs the trace ids.
 */
const exporter = new InMemorySpanExporter();
let observability: Observability;
let service: HttpService;
let client: HttpsClient;
let key: string;

beforeAll(async () => {
  const config = loadConfig({ DATA_DIR: makeDataDir(), PORT: "0", HTTP_PORT: "0", OCR_WORKERS: "1" }, 2);
  observability = await observabilityFor(config, { spanProcessor: new SimpleSpanProcessor({ exporter }) });
  const logger = makeLogger("silent", observability.logMixin);
  service = await startHttpService({ config, secrets: loadServerSecrets(config), logger, instrumentation: observability });
  const { servers, tls } = service;
  const services = service.runtime;
  client = new HttpsClient(servers.publicBaseUrl, Buffer.from(tls.cert));
  // Outside any request: no span is made for it.
  const created = await services.runPromise(
    Effect.gen(function* () {
      const account = yield* openAccount({ email: "tracing@example.com", name: "Tracing", plan: "pro" }, byTest);
      return yield* createKey(account.id, "tracing", byTest);
    }),
  );
  key = created.key;
  // The key directory follows the store within a second.
  for (let i = 0; i < 50 && (await client.request("GET", "/api/user/profile", { key })).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
}, 60_000);

afterAll(async () => {
  client?.close();
  await service?.stop(1000);
  await observability?.stop();
});

const childrenOf = (spans: ReadonlyArray<ReadableSpan>, parent: ReadableSpan) =>
  spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);

const serverSpan = (spans: ReadonlyArray<ReadableSpan>, name: string) => {
  const found = spans.filter((span) => span.name === name && span.kind === 1);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe("request spans (in-memory exporter)", () => {
  it("makes no span for work outside a request", () => {
    const outside = exporter.getFinishedSpans().filter((span) => span.kind !== 1 && span.parentSpanContext === undefined);
    expect(outside).toEqual([]);
  });

  it("gives POST /api/generate one server span with event-store, engine and result-store children", async () => {
    exporter.reset();
    const reply = await client.request("POST", "/api/generate", {
      key,
      body: { image: (await photoJpeg(400, 300)).toString("base64"), template: "instagram-square", templateType: "social" },
    });
    expect(reply.status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const request = serverSpan(spans, "POST /api/generate");
    expect(request.parentSpanContext).toBeUndefined();
    expect(request.attributes).toMatchObject({ "http.route": "/api/generate", "http.response.status_code": 200, "http.request.method": "POST" });
    const children = childrenOf(spans, request);
    const names = new Set(children.map((span) => span.name));
    for (const name of ["event_store.read_stream", "event_store.append", "engine.image.render", "result_store.put"]) expect(names).toContain(name);
    expect(children.find((span) => span.name === "engine.image.render")?.attributes).toMatchObject({ "its.template": "instagram-square" });
    // Reserve, request, commit, complete: four appends, each inside the request's time.
    expect(children.filter((span) => span.name === "event_store.append").length).toBeGreaterThanOrEqual(4);
    for (const child of children) {
      expect(child.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(child.startTime[0] * 1e9 + child.startTime[1]).toBeGreaterThanOrEqual(request.startTime[0] * 1e9 + request.startTime[1]);
    }
    // No span or attribute carries the key or the raw path of a result.
    expect(JSON.stringify(spans.map((span) => [span.name, span.attributes]))).not.toContain(key);

    exporter.reset();
    const url = new URL(reply.json.data.resultUrl as string);
    expect((await client.get(url.href)).status).toBe(200);
    const fetched = exporter.getFinishedSpans();
    const resultRequest = serverSpan(fetched, "GET /api/results/:resultId");
    expect(childrenOf(fetched, resultRequest).map((span) => span.name)).toEqual(["result_store.get"]);
    expect(JSON.stringify(fetched.map((span) => [span.name, span.attributes]))).not.toContain(url.pathname.split("/").at(-1));
  });

  it("marks a failed engine call and continues a caller's W3C trace", async () => {
    exporter.reset();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const reply = await client.request("POST", "/api/generate", {
      key,
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: { image: Buffer.from("not an image").toString("base64"), template: "instagram-square", templateType: "social" },
    });
    expect(reply.status).toBe(422);
    const spans = exporter.getFinishedSpans();
    const request = serverSpan(spans, "POST /api/generate");
    expect(request.spanContext().traceId).toBe(traceId);
    expect(request.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(spans.every((span) => span.spanContext().traceId === traceId)).toBe(true);
    expect(childrenOf(spans, request).some((span) => span.name === "event_store.append")).toBe(true);
  });
});

describe("sampling", () => {
  it("records nothing for a request whose caller's trace is not sampled", async () => {
    exporter.reset();
    const reply = await client.request("GET", "/api/user/profile", {
      key,
      headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b8-00" },
    });
    expect(reply.status).toBe(200);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe("the service process with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  interface OtlpSpan {
    readonly traceId: string;
    readonly spanId: string;
    readonly parentSpanId?: string;
    readonly name: string;
  }

  it("exports request spans over OTLP/HTTP, flushes them at shutdown, and writes their trace id on the request's log line", async () => {
    const received: OtlpSpan[] = [];
    const collector = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (request.url === "/v1/traces") {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
          for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
        }
        response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const service = await startService({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OCR_WORKERS: "1" } });
    try {
      const { keys } = await provisionAccount(service.env, "free");
      expect((await service.client.request("GET", "/api/user/profile", { key: keys[0]!.key })).status).toBe(200);
      // Spans are sent in batches; stopping the service sends what is still buffered.
      await service.stop();
      const request = received.find((span) => span.name === "GET /api/user/profile");
      expect(request).toBeDefined();
      const line = service
        .logs()
        .split("\n")
        .filter((l) => l.includes('"msg":"request"') && l.includes('"path":"/api/user/profile"'))
        .map((l) => JSON.parse(l) as { trace_id?: string; span_id?: string });
      expect(line).toHaveLength(1);
      expect(line[0]).toMatchObject({ trace_id: request!.traceId, span_id: request!.spanId });
      expect(received.some((span) => span.parentSpanId === request!.spanId && span.name === "event_store.read_stream")).toBe(true);
    } finally {
      await service.stop();
      collector.close();
      fs.rmSync(service.dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
