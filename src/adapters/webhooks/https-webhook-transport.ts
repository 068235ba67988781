import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Effect, Layer } from "effect";
import type { AttemptOutcome } from "../../domain/webhook-delivery.ts";
import { WebhookTransport, type WebhookTransportShape } from "../../ports/webhook-transport.ts";
import { addressProblem, hostOf, urlProblem } from "./webhook-target-rules.ts";

/** A 2xx within this is a delivery; Standard Webhooks' receivers answer quickly and work later. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

export interface WebhookTransportOptions {
  readonly allowInsecureTargets: boolean;
  readonly timeoutMs?: number;
}

class ForbiddenAddress extends Error {
  readonly code = "EFORBIDDENADDRESS";
}

/** A registration waits this long for the name's addresses, not the resolver's own timeouts. */
const RESOLVE_TIMEOUT_MS = 5000;

const resolveAll = (hostname: string) =>
  new Promise<ReadonlyArray<LookupAddress>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timeout")), RESOLVE_TIMEOUT_MS);
    dnsLookup(hostname, { all: true, verbatim: true } satisfies LookupAllOptions, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses);
    });
  });

/**
 * The resolver the connection uses: every address the name resolves to is checked, and only
 * checked addresses are handed to the socket, so a name that resolves to a public address at
 * registration and to a private one now (DNS rebinding) is refused now.
 */
const checkedLookup =
  (allowInsecure: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: ReadonlyArray<LookupAddress>) => {
      if (error) return callback(error, "", 0);
      const problem =
        addresses.length === 0 ? `${hostname} resolves to no address` : addresses.map((a) => addressProblem(a.address, allowInsecure)).find(Boolean);
      if (problem !== undefined) return callback(new ForbiddenAddress(problem), "", 0);
      if (options.all) return (callback as unknown as (e: null, all: ReadonlyArray<LookupAddress>) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

/** A failure's class for the delivery's record: never its message, which may echo the receiver. */
const errorClass = (error: unknown): string => {
  if (error instanceof Error && error.name === "TimeoutError") return "timeout";
  const code = (error as { code?: unknown }).code;
  if (code === "EFORBIDDENADDRESS") return "forbidden_address";
  if (code === "ABORT_ERR") return "timeout";
  return typeof code === "string" ? code : "network_error";
};

const send = (url: URL, headers: Readonly<Record<string, string>>, body: string, options: Required<WebhookTransportOptions>) =>
  new Promise<{ statusCode: number | null; error: string | null }>((resolve) => {
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)), "user-agent": "image-transformation-api-webhooks/1" },
        lookup: checkedLookup(options.allowInsecureTargets),
        signal: AbortSignal.timeout(options.timeoutMs),
        // One connection per attempt: a pooled socket would skip the address check of its lookup.
        agent: false,
      },
      (response) => {
        // The status is the answer; the body is not read (a receiver could stream one without end).
        resolve({ statusCode: response.statusCode ?? null, error: null });
        response.destroy();
      },
    );
    request.on("error", (error) => resolve({ statusCode: null, error: errorClass(error) }));
    request.end(body);
  });

/** node:https (node:http only with the insecure flag), no redirects followed: a 3xx is a failed attempt. */
export const makeWebhookTransport = (options: WebhookTransportOptions): WebhookTransportShape => {
  const settings = { allowInsecureTargets: options.allowInsecureTargets, timeoutMs: options.timeoutMs ?? WEBHOOK_TIMEOUT_MS };
  return {
    targetProblem: (raw) =>
      Effect.promise(async () => {
        const problem = urlProblem(raw, settings.allowInsecureTargets);
        if (problem !== undefined) return problem;
        const host = hostOf(new URL(raw));
        try {
          const addresses = await resolveAll(host);
          if (addresses.length === 0) return `${host} resolves to no address`;
          return addresses.map((a) => addressProblem(a.address, settings.allowInsecureTargets)).find((found) => found !== undefined);
        } catch {
          return `${host} does not resolve`;
        }
      }),
    post: ({ url, headers, body }) =>
      Effect.promise(async (): Promise<AttemptOutcome> => {
        const started = performance.now();
        const problem = urlProblem(url, settings.allowInsecureTargets);
        const { statusCode, error } =
          problem === undefined ? await send(new URL(url), headers, body, settings) : { statusCode: null, error: "forbidden_address" };
        const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
        return { ok, statusCode, error, durationMs: Math.round(performance.now() - started) };
      }),
  };
};

export const webhookTransportLayer = (options: WebhookTransportOptions) => Layer.succeed(WebhookTransport)(makeWebhookTransport(options));
