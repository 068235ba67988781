import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsNames } from "../../src/adapters/nats/nats-names.ts";
import type { RecordedEvent } from "../../src/ports/event-store.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { itsctl, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Hostile case 3: whoever reaches the bus publishes on it. The bus carries notices only (an event's
 * id and position), so an attacker with a free key finds nothing of their key's ApiKeyIssued event
 * there; give them that event all the same (read from the store, or from a stream an earlier
 * version filled with whole events): they re-address it to a victim's enterprise account under a
 * new key id (the stored hash is of the secret alone, which the attacker knows) and publish it, a
 * whole event as earlier versions sent them, on `<ns>.events.account`; once with a position the
 * store holds (another event is there), once with a huge one. The service must treat bus messages
 * as claims to check against the store: the forged key stays refused, each forged message is
 * named in the log, and the huge position does not make the victim's later key deletion be skipped.
 */
const namespace = testNamespace();
const names = natsNames(namespace);
let service: ServiceProcess;

beforeAll(async () => {
  service = await startService({ env: { NATS_URL, NATS_NAMESPACE: namespace } });
});
afterAll(async () => {
  await service?.stop();
  if (service) fs.rmSync(service.dataDir, { recursive: true, force: true });
  await dropNatsNamespace(namespace);
});

const profile = (key: string) => service.client.request("GET", "/api/user/profile", { key });

const withNats = async <A>(body: (nc: Awaited<ReturnType<typeof connect>>) => Promise<A>): Promise<A> => {
  const nc = await connect({ servers: NATS_URL });
  try {
    return await body(nc);
  } finally {
    await nc.close();
  }
};

/** The attacker's own key's ApiKeyIssued event, as the store holds it, once the forwarder has announced it. */
const ownEvent = async (keyId: string): Promise<RecordedEvent> => {
  const db = new DatabaseSync(path.join(service.dataDir, "events.sqlite"), { readOnly: true });
  const rows = db.prepare("SELECT * FROM events WHERE type = 'ApiKeyIssued'").all() as Array<Record<string, string | number>>;
  db.close();
  const row = rows.find((candidate) => (JSON.parse(String(candidate["data"])) as { keyId: string }).keyId === keyId)!;
  const event: RecordedEvent = {
    eventId: String(row["event_id"]),
    streamName: String(row["stream_name"]),
    streamRevision: Number(row["stream_revision"]),
    globalPosition: Number(row["global_position"]),
    type: String(row["type"]),
    data: JSON.parse(String(row["data"])) as RecordedEvent["data"],
    metadata: JSON.parse(String(row["metadata"])) as RecordedEvent["metadata"],
    recordedAt: String(row["recorded_at"]),
  };
  // What the bus holds of it: its notice, nothing of its data.
  await withNats(async (nc) => {
    const manager = await jetstreamManager(nc);
    const deadline = Date.now() + 10_000;
    for (let sequence = 1; ;) {
      const last = (await manager.streams.info(names.eventStream)).state.last_seq;
      for (; sequence <= last; sequence++) {
        const body = (await manager.streams.getMessage(names.eventStream, { seq: sequence }))?.json<Record<string, unknown>>();
        if (body?.["eventId"] === event.eventId) {
          expect(body).toEqual({ eventId: event.eventId, globalPosition: event.globalPosition });
          return;
        }
      }
      if (Date.now() > deadline) throw new Error(`ApiKeyIssued of ${keyId} was never announced on the bus`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  return event;
};

/** Publishes as the attacker would: plain JetStream, on the subject the key projection follows. */
const publishForged = (event: RecordedEvent) =>
  withNats(async (nc) => (await jetstream(nc).publish(`${names.subjectRoot}.account`, JSON.stringify(event))).seq);

/** Until every durable consumer of the stream has taken everything it was handed. */
const consumersDrained = (throughSequence: number) =>
  withNats(async (nc) => {
    const manager = await jetstreamManager(nc);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const consumers = [];
      for await (const consumer of manager.consumers.list(names.eventStream)) consumers.push(consumer);
      const keys = consumers.filter((consumer) => consumer.name.startsWith("keys"));
      if (
        keys.length > 0 &&
        consumers.every((c) => c.num_pending === 0 && c.num_ack_pending === 0) &&
        keys.every((c) => c.delivered.stream_seq >= throughSequence)
      )
        return;
      if (Date.now() > deadline)
        throw new Error(
          `consumers did not take message ${throughSequence}: ${JSON.stringify(consumers.map((c) => [c.name, c.num_pending, c.num_ack_pending]))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

const forgedKeyId = () => randomUUID().replaceAll("-", "").slice(0, 16);
/** `its_<keyId>_<secret>`: the secret is base64url and may hold "_" itself. */
const secretOf = (key: { readonly id: string; readonly key: string }) => key.key.slice(`its_${key.id}_`.length);

describe("a forged event on the bus", () => {
  it("mints no key on a victim's account, is named in the log, and its huge position skips no later event", async () => {
    const victim = await provisionAccount(service.env, "enterprise");
    const attacker = await provisionAccount(service.env, "free");
    expect((await profile(victim.keys[0]!.key)).status).toBe(200);
    const own = await ownEvent(attacker.keys[0]!.id);

    const readdressed = (keyId: string, globalPosition: number): RecordedEvent => ({
      ...own,
      eventId: randomUUID(),
      streamName: `account-${victim.accountId}`,
      globalPosition,
      data: { ...own.data, accountId: victim.accountId, keyId, name: "forged" },
    });
    // At a position the store holds (the attacker's own event is there), and far past anything it holds.
    const atRealPosition = readdressed(forgedKeyId(), own.globalPosition);
    const farAhead = readdressed(forgedKeyId(), 1_000_000_000);
    const sequences = [await publishForged(atRealPosition), await publishForged(farAhead)];
    await consumersDrained(sequences[1]!);

    for (const forged of [atRealPosition, farAhead]) {
      const stolen = await profile(`its_${forged.data["keyId"]}_${secretOf(attacker.keys[0]!)}`);
      expect(stolen.status).toBe(401);
      expect(JSON.stringify(stolen.json)).not.toContain(victim.accountId);
    }
    // Later real events still count: the victim's key deletion is refused within 1 s, a new key works.
    expect((await itsctl(service.env, ["key", "delete", "--account", victim.accountId, "--key", victim.keys[0]!.id])).code).toBe(0);
    const deletedAt = Date.now();
    while ((await profile(victim.keys[0]!.key)).status !== 401) {
      expect(Date.now() - deletedAt).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const made = await itsctl(service.env, ["key", "create", "--account", victim.accountId, "--name", "after", "--json"]);
    const fresh = JSON.parse(made.stdout) as { key: string };
    expect((await profile(fresh.key)).status).toBe(200);

    // The log is buffered until 4 KiB or exit: stopped, the service has written all of it.
    await service.stop();
    const logs = service.logs();
    for (const [forged, sequence] of [
      [atRealPosition, sequences[0]!],
      [farAhead, sequences[1]!],
    ] as const) {
      expect(logs).toContain(
        `dropped bus message: subject ${names.subjectRoot}.account, sequence ${sequence}, claimed event ${forged.eventId} at position ${forged.globalPosition}`,
      );
    }
  });
});
