import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fixtures from "../fixtures/tryon/tryon-fixtures.ts";
import { plainRequest } from "../support/https-client.ts";
import { metricsPortOf, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 24, case 9: /virtual-tryon has one slot. Requests the deadline can serve wait for it
 * instead of getting 503 (six at once from one account answered 503 before), and accounts take
 * turns on it: one account's line does not hold back another's request.
 */
let service: ServiceProcess;
let metricsPort: number;
let body: { personImage: string; clothingImage: string };

beforeAll(async () => {
  service = await startService({ env: { METRICS_PORT: "0" } });
  metricsPort = metricsPortOf(service);
  body = {
    personImage: Buffer.from(await fixtures.astronautPortrait()).toString("base64"),
    clothingImage: `data:image/png;base64,${Buffer.from(await fixtures.tshirt()).toString("base64")}`,
  };
});
afterAll(async () => service?.stop());

const tryOn = (key: string) => service.client.request("POST", "/api/virtual-tryon", { key, body });

/** Try-on jobs running and waiting in the engine now (its_engine_in_flight). */
const tryOnsInEngine = async () => {
  const text = (await plainRequest(metricsPort, "GET", "/metrics")).body.toString();
  const line = text.split("\n").find((l) => l.startsWith('its_engine_in_flight{engine="tryon"}'));
  return Number(line?.slice(line.lastIndexOf(" ") + 1) ?? 0);
};

describe("/virtual-tryon admission", () => {
  it("serves six requests sent at once from one account on the default settings: all 200", async () => {
    const { keys } = await provisionAccount(service.env, "pro");
    const replies = await Promise.all(Array.from({ length: 6 }, () => tryOn(keys[0]!.key)));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it("takes turns between accounts: a request from another account does not wait for one account's whole line", async () => {
    const [a, b] = await Promise.all([provisionAccount(service.env, "pro"), provisionAccount(service.env, "pro")]);
    const finished: Array<string> = [];
    const sent = (name: string, key: string) =>
      tryOn(key).then((reply) => {
        finished.push(name);
        return reply.status;
      });
    const first = Array.from({ length: 5 }, (_, i) => sent(`a${i}`, a.keys[0]!.key));
    // All five of A's jobs are in the engine (one running, four waiting) before B's is sent.
    for (let waited = 0; (await tryOnsInEngine()) < 5; waited += 50) {
      if (waited > 30_000) throw new Error("A's try-ons never reached the engine");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const statuses = await Promise.all([...first, sent("b", b.keys[0]!.key)]);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    // In arrival order B would finish last; in turns it starts when A's running job ends.
    expect(finished.indexOf("b")).toBeLessThanOrEqual(2);
  });
});
