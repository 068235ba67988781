import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Reply } from "../support/https-client.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";
import { itsctl, makeDataDir, provisionAccount, type ServiceProcess, startService, waitForExit } from "../support/service-process.ts";

/**
 * Two service processes with their own DATA_DIRs on one PostgreSQL store and NATS, results shared
 * (RESULT_STORE=postgres, or nats: a JetStream Object Store): a result URL made by one works on the
 * other, also after the first is stopped with SIGTERM under load, which loses nothing.
 */
/** The same result URL, asked of another instance (as a load balancer would send it). */
const onInstance = (resultUrl: string, instance: ServiceProcess) => {
  const url = new URL(resultUrl);
  url.port = String(instance.httpsPort);
  return url.href;
};

describe.each(["postgres", "nats"])("results shared by every instance (RESULT_STORE=%s)", (resultStore) => {
  const schema = freshSchemaName("its_e2e_results");
  const namespace = testNamespace();
  const shared = {
    EVENT_STORE: "postgres",
    DATABASE_URL: `${postgresUrl}?schema=${schema}`,
    RESULT_STORE: resultStore,
    SERVER_SECRET: `shared-results-${randomUUID()}`,
    NATS_URL,
    NATS_NAMESPACE: namespace,
  };

  let first: ServiceProcess;
  let second: ServiceProcess;
  let cli: Record<string, string>;

  beforeAll(async () => {
    first = await startService({ env: shared });
    second = await startService({ env: shared });
    cli = { ...shared, DATA_DIR: makeDataDir() };
  });
  afterAll(async () => {
    for (const instance of [first, second]) {
      await instance?.stop();
      if (instance) fs.rmSync(instance.dataDir, { recursive: true, force: true });
    }
    if (cli) fs.rmSync(cli["DATA_DIR"]!, { recursive: true, force: true });
    await dropSchemas([schema]);
    await dropNatsNamespace(namespace);
  });

  it("serves on one instance a result made by the other, also after the maker stopped under load with SIGTERM; nothing is lost", async () => {
    const { accountId, keys } = await provisionAccount(cli, "pro", 2);
    const image = (await photoPng(1200, 900)).toString("base64");
    const body = { image, template: "instagram-square", templateType: "social" };

    const made = await first.client.request("POST", "/api/generate", { key: keys[0]!.key, body });
    expect(made.status).toBe(200);
    const fromMaker = await first.client.get(made.json.data.resultUrl);
    const fromOther = await second.client.get(onInstance(made.json.data.resultUrl, second));
    expect(fromOther.status).toBe(200);
    expect(fromOther.headers["content-type"]).toBe(fromMaker.headers["content-type"]);
    expect(fromOther.body.equals(fromMaker.body)).toBe(true);

    // SIGTERM the maker while it works: what it admitted is finished, what comes later is refused.
    const inFlight = Array.from({ length: 12 }, (_, i) =>
      first.client.request("POST", "/api/generate", { key: keys[i % 2]!.key, body }).catch(() => "connection lost" as const),
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    process.kill(first.pid, "SIGTERM");
    const replies: Array<Reply | "connection lost"> = await Promise.all(inFlight);
    await waitForExit(first.pid);
    expect(replies.filter((r) => r === "connection lost")).toHaveLength(0);
    const served = replies.filter((r): r is Reply => r !== "connection lost" && r.status === 200);
    expect(served.length).toBeGreaterThan(0);
    for (const r of replies) expect(r !== "connection lost" && [200, 503].includes(r.status)).toBe(true);

    // The maker is gone: its results, the first and those it finished while stopping, come from the other.
    for (const r of [made, ...served]) {
      const fetched = await second.client.get(onInstance(r.json.data.resultUrl, second));
      expect(fetched.status).toBe(200);
      expect(fetched.body.length).toBe(r.json.data.bytes);
    }

    const audit = await itsctl(second.env, ["audit", "--account", accountId]);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    const units = served.length + 1;
    expect(audit.stdout).toContain(`Totals: ${units} unit(s) committed, 0 unit(s) released, ${units} unit(s) reserved, 0 request(s) refused (0 unit(s))`);
  }, 180_000);
});
