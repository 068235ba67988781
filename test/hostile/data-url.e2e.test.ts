import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchHealthz } from "../support/healthz-watch.ts";
import { provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Hostile case 1: `"data:" + "A" × n` once ran the data-URL pattern in time quadratic in n on the
 * event loop (n = 1,000,000 froze the instance for ~20 minutes), and failures cost the sender
 * nothing. Now every image route refuses it at once and the instance keeps answering.
 */
let service: ServiceProcess;
let key: string;

beforeAll(async () => {
  service = await startService();
  key = (await provisionAccount(service.env, "enterprise")).keys[0]!.key;
});
afterAll(async () => service?.stop());

const endless = `data:${"A".repeat(1_000_000)}`;

describe("an endless data-URL prefix", () => {
  it.each([
    ["/api/ocr", { image: endless }],
    ["/api/generate", { image: endless, template: "instagram-square", templateType: "social" }],
    ["/api/virtual-tryon", { personImage: endless, clothingImage: endless }],
  ])("%s refuses it with a 4xx within 1 s while /healthz answers within 0.25 s", async (path, body) => {
    const watch = watchHealthz(service.client);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    const reply = await service.client.request("POST", path, { key, body });
    const tookMs = performance.now() - started;
    const health = await watch.stop();
    expect(reply.status, JSON.stringify(reply.json)).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(reply.json.success).toBe(false);
    expect(tookMs).toBeLessThan(1000);
    expect(health.longestMs).toBeLessThan(250);
  });

  it("costs no quota", async () => {
    const profile = await service.client.request("GET", "/api/user/profile", { key });
    expect(profile.json.data.quota.used).toBe(0);
  });
});
