import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { natsNames } from "../../src/adapters/nats/nats-names.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { dropSchemas, freshSchemaName, postgresUrl } from "../support/postgres.ts";
import { makeDataDir, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 13, case 1: a NATS server outlives the stores it served. A new store started under the same
 * NATS_NAMESPACE (a reset database, a second environment) met the earlier store's stream, forwarder
 * checkpoint and durable consumers, took them for its own, and refused every new key, forever. The
 * bus and the projections now belong to one store identity; whatever another store left is said in
 * the log (both identities named) and never taken for this store's.
 */
const schemas: Array<string> = [];
const namespaces: Array<string> = [];
const dataDirs: Array<string> = [];
afterAll(async () => {
  await dropSchemas(schemas);
  for (const namespace of namespaces) await dropNatsNamespace(namespace);
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const postgresStore = () => {
  const schema = freshSchemaName("its_identity");
  schemas.push(schema);
  return { schema, env: { EVENT_STORE: "postgres", DATABASE_URL: `${postgresUrl}?schema=${schema}` } };
};

/** The identity a store recorded for itself (see store-identity.ts), as the log names it. */
const identityOf = async (schema: string) => {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ data: { storeId: string }; global_position: string }>(
      `SELECT data, global_position FROM ${schema}.events WHERE stream_name = 'store-identity' ORDER BY stream_revision LIMIT 1`,
    );
    return `${rows[0]!.data.storeId}@${rows[0]!.global_position}`;
  } finally {
    await client.end();
  }
};

const profileStatus = async (service: ServiceProcess, key: string) => (await service.client.request("GET", "/api/user/profile", { key })).status;

/** How long a new key, made with itsctl, takes to work (docs/api-decisions.md: at once); and the key. */
const newKeyWorksAfter = async (service: ServiceProcess, keyCount = 1) => {
  const { keys } = await provisionAccount(service.env, "pro", keyCount);
  const made = Date.now();
  for (;;) {
    const status = await profileStatus(service, keys[0]!.key);
    if (status === 200) return { ms: Date.now() - made, key: keys[0]!.key };
    expect(status).toBe(401);
    if (Date.now() - made > 3_000) return { ms: Infinity, key: keys[0]!.key };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
const msUntilKeyWorks = async (service: ServiceProcess) => (await newKeyWorksAfter(service)).ms;

const started: Array<ServiceProcess> = [];
const start = async (env: Record<string, string>, dataDir = makeDataDir()) => {
  dataDirs.push(dataDir);
  const service = await startService({ dataDir, env: { SERVER_SECRET: "store-identity-e2e-secret-0123456789abcdef", ...env } });
  started.push(service);
  return service;
};
afterAll(async () => {
  for (const service of started) await service.stop();
});

describe("a NATS namespace that served an earlier store", () => {
  // Three service starts: a minute or more on a loaded machine.
  it("gives a second store working keys within 1 s, and the log names both store identities", { timeout: 240_000 }, async () => {
    const namespace = testNamespace();
    namespaces.push(namespace);
    const nats = { NATS_URL, NATS_NAMESPACE: namespace };

    // The first store: more events than the second will have, so its positions cover the second's.
    const first = postgresStore();
    const one = await start({ ...first.env, ...nats });
    const ofFirst = await newKeyWorksAfter(one, 2);
    expect(ofFirst.ms).toBeLessThan(1_000);
    await one.stop();

    // A fresh store, another environment (its own DATA_DIR), the same namespace.
    const second = postgresStore();
    const two = await start({ ...second.env, ...nats });
    const waited = await msUntilKeyWorks(two);
    console.log(`[store identity] a key on the second store worked after ${waited} ms`);
    expect(waited).toBeLessThan(1_000);
    await two.stop();
    expect(two.logs()).toContain(
      `held the events of store ${await identityOf(first.schema)}, but this service's event store is ${await identityOf(second.schema)}`,
    );

    // A reset database under a DATA_DIR kept from the first store: its projections are not taken either.
    const third = postgresStore();
    const three = await start({ ...third.env, ...nats }, one.dataDir);
    expect(await msUntilKeyWorks(three)).toBeLessThan(1_000);
    // A key of the first store means nothing to the third, though its DATA_DIR's projections held it.
    expect(await profileStatus(three, ofFirst.key)).toBe(401);
    await three.stop();
    const thirdIdentity = await identityOf(third.schema);
    expect(three.logs()).toContain(`held the events of store ${await identityOf(second.schema)}, but this service's event store is ${thirdIdentity}`);
    expect(three.logs()).toContain(
      `projection keys (${path.join(one.dataDir, "projections.sqlite")}) was built from event store ${await identityOf(first.schema)}, but this service's event store is ${thirdIdentity}`,
    );
  });
});

/**
 * This machine's NATS keeps JetStream state between runs (-sd /var/lib/nats-server), and so does an
 * operator's. This namespace is left in place on purpose, one per checkout: the next run of this
 * test starts a new store against what this run left.
 */
const KEPT_NAMESPACE = `tkept${createHash("sha256")
  .update(path.resolve(import.meta.dirname))
  .digest("hex")
  .slice(0, 10)}`;

/** The store that owns the kept namespace's stream, if an earlier run left one. */
const ownerOfKept = async (): Promise<string | undefined> => {
  const nc = await connect({ servers: NATS_URL });
  try {
    const names = natsNames(KEPT_NAMESPACE);
    const info = await (await jetstreamManager(nc)).streams.info(names.eventStream).catch(() => undefined);
    if (info === undefined) return undefined;
    const entry = await (await new Kvm(nc).open(names.checkpointBucket)).get(`owner.${Date.parse(info.created)}`);
    return entry?.operation === "PUT" ? entry.string() : undefined;
  } finally {
    await nc.close();
  }
};

describe("a NATS that keeps its state between runs", () => {
  it("gives a new store working keys within 1 s whatever an earlier run left, and names that run's store", { timeout: 120_000 }, async () => {
    const before = await ownerOfKept();
    const service = await start({ NATS_URL, NATS_NAMESPACE: KEPT_NAMESPACE });
    const waited = await msUntilKeyWorks(service);
    console.log(
      `[store identity] kept namespace ${KEPT_NAMESPACE} (${before === undefined ? "new" : `left by store ${before}`}): a key worked after ${waited} ms`,
    );
    expect(waited).toBeLessThan(1_000);
    await service.stop();
    const after = await ownerOfKept();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // What an earlier run left (the first describe covers the case every run).
    if (before !== undefined) expect(service.logs()).toContain(`held the events of store ${before}, but this service's event store is ${after}`);
  });
});
