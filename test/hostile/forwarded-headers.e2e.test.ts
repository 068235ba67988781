import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainRequest } from "../support/https-client.ts";
import { type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Hostile case 4: behind one trusted proxy (TRUST_PROXY=true) the client is the entry that proxy
 * appended, the rightmost; whatever the client wrote to the left of it is not believed. Redirects
 * go to PUBLIC_BASE_URL whatever Host the request names.
 */
const PUBLIC_BASE_URL = "https://api.example.test";
const PROXY_SAW = "203.0.113.7";
let service: ServiceProcess;

beforeAll(async () => {
  service = await startService({ env: { TRUST_PROXY: "true", PUBLIC_BASE_URL } });
});
afterAll(async () => service?.stop());

const badKey = `its_${"0".repeat(16)}_${"A".repeat(43)}`;
const throughProxy = (forgedFor: string, proto = "https") => ({ "X-Forwarded-For": `${forgedFor}, ${PROXY_SAW}`, "X-Forwarded-Proto": proto });

describe("forwarded headers", () => {
  it("throttles failed keys by the address the proxy saw, whatever the client forges to its left", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const reply = await service.client.request("GET", "/api/user/profile", { key: badKey, headers: throughProxy(`198.51.100.${i}`) });
      statuses.push(reply.status);
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(20);
    expect(statuses.slice(20).every((status) => status === 429)).toBe(true);
    // The log names the proxy's entry, never the forged one.
    expect(service.logs()).toContain(`"ip":"${PROXY_SAW}"`);
    expect(service.logs()).not.toContain(`"ip":"198.51.100.`);
  });

  it("believes the protocol the proxy saw, the rightmost entry, not one the client put before it", async () => {
    const forged = await service.client.request("GET", "/healthz", { headers: throughProxy("198.51.100.1", "https, http") });
    expect(forged.status).toBe(308);
    const honest = await service.client.request("GET", "/healthz", { headers: throughProxy("198.51.100.1", "http, https") });
    expect(honest.status).toBe(200);
  });

  it("redirects to PUBLIC_BASE_URL, never to the Host the request names", async () => {
    const viaProxy = await service.client.request("GET", "/api/templates?x=1", { headers: throughProxy("198.51.100.1", "http") });
    expect(viaProxy.status).toBe(308);
    expect(viaProxy.headers.location).toBe(`${PUBLIC_BASE_URL}/api/templates?x=1`);
    const plain = await plainRequest(service.httpPort, "GET", "/api/templates", undefined, { Host: "evil.example:8443" });
    expect(plain.status).toBe(308);
    expect(plain.headers.location).toBe(`${PUBLIC_BASE_URL}/api/templates`);
  });
});
