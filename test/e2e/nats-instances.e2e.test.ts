import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { itsctl, makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/** Two instances of the service on one event store and one NATS: one rate per key, one key directory. */
const namespace = testNamespace();
let instances: Array<ServiceProcess> = [];

beforeAll(async () => {
  const dataDir = makeDataDir();
  const env = { NATS_URL, NATS_NAMESPACE: namespace };
  // One after the other: the first makes the shared TLS certificate and server secret.
  const first = await startService({ dataDir, env });
  instances = [first, await startService({ dataDir, env })];
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await dropNatsNamespace(namespace);
});

const profile = (instance: ServiceProcess, key: string) => instance.client.request("GET", "/api/user/profile", { key });

describe("several instances with NATS", () => {
  it("share one rate per key: 16 concurrent requests spread over both get exactly 15 successes", async () => {
    const { keys } = await provisionAccount(instances[0]!.env, "free");
    const replies = await Promise.all(Array.from({ length: 16 }, (_, i) => profile(instances[i % 2]!, keys[0]!.key)));
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(15);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
    const refused = replies.find((reply) => reply.status === 429)!;
    expect(refused.json.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("refuse a deleted key on every instance within 1 s", async () => {
    const { accountId, keys } = await provisionAccount(instances[0]!.env, "pro");
    const key = keys[0]!;
    for (const instance of instances) expect((await profile(instance, key.key)).status).toBe(200);
    expect((await itsctl(instances[0]!.env, ["key", "delete", "--account", accountId, "--key", key.id])).code).toBe(0);
    const deletedAt = Date.now();
    const refusedAfter = await Promise.all(
      instances.map(async (instance) => {
        while ((await profile(instance, key.key)).status !== 401) {
          if (Date.now() - deletedAt > 2_000) return Infinity;
        }
        return Date.now() - deletedAt;
      }),
    );
    console.log(`[instances] deleted key refused after ${refusedAfter.join(" ms and ")} ms`);
    for (const ms of refusedAfter) expect(ms).toBeLessThan(1_000);
  });
});
