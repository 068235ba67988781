import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { AckPolicy, DiscardPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Context, Effect, Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsNames } from "../../src/adapters/nats/nats-names.ts";
import { loadServerSecrets } from "../../src/adapters/security/server-secret.ts";
import { coreLayer } from "../../src/composition.ts";
import { loadConfig } from "../../src/config.ts";
import { EventStore, type EventStoreShape } from "../../src/ports/event-store.ts";
import { photoPng } from "../support/image-fixtures.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../support/nats.ts";
import { itsctl, makeDataDir, metricsPortOf, provisionAccount, type ServiceProcess, startService } from "../support/service-process.ts";

/**
 * Issue 24, case 3, on the machine's NATS (default max_payload 1 MiB): ordinary traffic must not
 * stop the event flow. The bus carries notices (an event's id and position), so no event is too
 * large for it; a notice the bus refuses for good is logged at error level with its position and
 * cause, counted and skipped; the lag gauges are the store's head minus each checkpoint; and a
 * stream an earlier version left (unbounded, whole events as messages, durables filtered by
 * category) is brought to the new limits at start, its old messages read as notices.
 */
const withNats = async <A>(body: (nc: Awaited<ReturnType<typeof connect>>) => Promise<A>): Promise<A> => {
  const nc = await connect({ servers: NATS_URL });
  try {
    return await body(nc);
  } finally {
    await nc.close();
  }
};

/** Appends straight into the service's store, as itsctl does: same configuration, same hash chains. */
const appendDirectly = async (service: ServiceProcess, append: (store: EventStoreShape) => Effect.Effect<unknown, unknown>) => {
  const config = loadConfig(service.env, 1);
  return Effect.runPromise(
    Effect.scoped(Layer.build(coreLayer(config, loadServerSecrets(config))).pipe(Effect.flatMap((context) => append(Context.get(context, EventStore))))),
  );
};

const readDb = <A>(file: string, read: (db: DatabaseSync) => A): A => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
};
const storeHead = (dataDir: string) =>
  readDb(path.join(dataDir, "events.sqlite"), (db) => Number((db.prepare("SELECT max(global_position) AS head FROM events").get() as { head: number }).head));
const checkpoints = (dataDir: string): Record<string, number> =>
  readDb(path.join(dataDir, "projections.sqlite"), (db) =>
    Object.fromEntries(
      (db.prepare("SELECT projection, position FROM checkpoints").all() as Array<{ projection: string; position: number }>).map((r) => [
        r.projection,
        r.position,
      ]),
    ),
  );

const scrape = async (service: ServiceProcess) => (await fetch(`http://127.0.0.1:${metricsPortOf(service)}/metrics`)).text();
const sample = (text: string, series: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no sample ${series}`);
  return Number(line.slice(series.length + 1));
};

const waitUntil = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
/** Both projections at the store's head. */
const projectionsCurrent = (dataDir: string) => {
  const head = storeHead(dataDir);
  const at = checkpoints(dataDir);
  return at["usage"] === head && at["keys"] === head;
};

const profile = (service: ServiceProcess, key: string) => service.client.request("GET", "/api/user/profile", { key });
const generate = async (service: ServiceProcess, key: string) =>
  service.client.request("POST", "/api/generate", {
    key,
    body: { image: (await photoPng(64, 48)).toString("base64"), template: "instagram-square", templateType: "social" },
  });

/** A new key through the CLI, timed from the command's end to the first 200 with it. */
const keyWorksWithin = async (service: ServiceProcess, accountId: string) => {
  const made = await itsctl(service.env, ["key", "create", "--account", accountId, "--name", "after", "--json"]);
  expect(made.code).toBe(0);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const madeAt = Date.now();
  while ((await profile(service, key)).status !== 200) {
    expect(Date.now() - madeAt).toBeLessThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { key, ms: Date.now() - madeAt };
};

describe("the event flow on NATS under ordinary traffic", () => {
  const namespace = testNamespace();
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startService({ env: { NATS_URL, NATS_NAMESPACE: namespace, METRICS_PORT: "0" } });
  });
  afterAll(async () => {
    await service?.stop();
    if (service) fs.rmSync(service.dataDir, { recursive: true, force: true });
    await dropNatsNamespace(namespace);
  });

  it("10,000 streams changed within one seal interval: the seal and every event after it reach the projections, a new key works within 1 s, the lag gauges read the store and checkpoints", async () => {
    const account = await provisionAccount(service.env, "pro");
    const streams = 10_000;
    const started = performance.now();
    await appendDirectly(service, (store) =>
      Effect.forEach(
        Array.from({ length: streams }, () => randomUUID()),
        (accountId) =>
          store.appendToStream(
            `account-${accountId}`,
            [{ type: "AccountOpened", data: { accountId, email: `${accountId}@example.com`, name: "", plan: "free", at: new Date().toISOString() } }],
            { expectedRevision: -1 },
          ),
        { discard: true },
      ),
    );
    const appendMs = performance.now() - started;

    // While the projections work through them: each gauge lies between what the checkpoints said before and after the scrape.
    const head = storeHead(service.dataDir);
    const before = checkpoints(service.dataDir);
    const text = await scrape(service);
    const after = checkpoints(service.dataDir);
    for (const projection of ["usage", "keys"]) {
      const lag = sample(text, `its_projection_lag_events{projection="${projection}"}`);
      expect(lag).toBeLessThanOrEqual(head - before[projection]!);
      expect(lag).toBeGreaterThanOrEqual(head - after[projection]!);
    }

    // The seal names every stream's head: ~1.5 MB in all, over NATS's 1 MiB max_payload, written in bounded pieces.
    const beforeSeal = storeHead(service.dataDir);
    const sealed = await itsctl(service.env, ["ledger", "seal"]);
    expect(sealed.code).toBe(0);
    expect(Number(/^Sealed (\d+) stream heads/.exec(sealed.stdout)?.[1])).toBeGreaterThan(streams);
    const sealPosition = storeHead(service.dataDir);
    const pieceBytes = readDb(path.join(service.dataDir, "events.sqlite"), (db) =>
      (
        db.prepare("SELECT length(data) AS bytes FROM events WHERE global_position > ? AND global_position <= ?").all(beforeSeal, sealPosition) as Array<{
          bytes: number;
        }>
      ).map((row) => Number(row.bytes)),
    );
    const sealBytes = pieceBytes.reduce((sum, bytes) => sum + bytes, 0);
    expect(sealBytes).toBeGreaterThan(1024 * 1024);
    expect(Math.max(...pieceBytes)).toBeLessThan(64 * 1024);

    const fresh = await keyWorksWithin(service, account.accountId);
    expect((await generate(service, fresh.key)).status).toBe(200);
    await waitUntil("the projections at the store's head", () => projectionsCurrent(service.dataDir));
    const flowedMs = performance.now() - started;
    const finalHead = storeHead(service.dataDir);
    expect(finalHead).toBeGreaterThan(sealPosition);

    // The bus announced the seal and everything after it (the projections needed none but the last: they read the store).
    const { eventStream } = natsNames(namespace);
    const lastNotice = () =>
      withNats(async (nc) => {
        const manager = await jetstreamManager(nc);
        const last = (await manager.streams.info(eventStream)).state.last_seq;
        return (await manager.streams.getMessage(eventStream, { seq: last }))!.json<{ globalPosition: number }>().globalPosition;
      });
    await waitUntil("the forwarder through the head", async () => (await lastNotice()) === finalHead);
    const notices = await withNats(async (nc) => {
      const manager = await jetstreamManager(nc);
      const last = (await manager.streams.info(eventStream)).state.last_seq;
      const found: Array<number> = [];
      for (let seq = last; seq > 0 && found.at(-1) !== beforeSeal + 1; seq--) {
        found.push((await manager.streams.getMessage(eventStream, { seq }))!.json<{ globalPosition: number }>().globalPosition);
      }
      return found.reverse();
    });
    expect(notices).toEqual(Array.from({ length: finalHead - beforeSeal }, (_, i) => beforeSeal + 1 + i));

    const current = await scrape(service);
    expect(sample(current, 'its_projection_lag_events{projection="usage"}')).toBe(0);
    expect(sample(current, 'its_projection_lag_events{projection="keys"}')).toBe(0);
    expect(sample(current, "its_event_forwarder_lag_events")).toBe(0);
    console.log(
      `[event flow] ${streams} streams appended in ${Math.round(appendMs)} ms; a seal of ${(sealBytes / 1024 / 1024).toFixed(2)} MB in ${pieceBytes.length} events; ` +
        `key after the seal working in ${fresh.ms} ms; projections at the head ${((flowedMs - appendMs) / 1000).toFixed(1)} s after the last load event (2-core machine, shared)`,
    );
  });

  it("a notice the bus refuses for good is logged at error level with its position and cause, counted, and skipped; an event of 2 MiB flows as a notice", async () => {
    const account = await provisionAccount(service.env, "pro");
    // An event id no NATS message can carry (written by hand, say), then an event whose data is over max_payload.
    await appendDirectly(service, (store) =>
      Effect.gen(function* () {
        yield* store.appendToStream("transformation-refused", [{ eventId: "r".repeat(8_000), type: "Noted", data: {} }], { expectedRevision: "any" });
        yield* store.appendToStream("transformation-large", [{ type: "Noted", data: { body: "x".repeat(2 * 1024 * 1024) } }], { expectedRevision: "any" });
      }),
    );
    const refused = storeHead(service.dataDir) - 1;
    const fresh = await keyWorksWithin(service, account.accountId);
    expect((await generate(service, fresh.key)).status).toBe(200);
    await waitUntil("the projections at the store's head", () => projectionsCurrent(service.dataDir));

    const text = await scrape(service);
    expect(sample(text, "its_event_bus_publish_refusals_total")).toBe(1);
    expect(sample(text, "its_event_forwarder_lag_events")).toBe(0);
    // The log is buffered until 4 KiB or exit: stopped, the service has written all of it.
    await service.stop();
    const line = JSON.parse(
      service
        .logs()
        .split("\n")
        .find((l) => l.includes(`at position ${refused} for good`))!,
    ) as { level: number; msg: string };
    expect(line.level).toBe(50);
    expect(line.msg).toContain("the bus refused the notice of event rrrr");
    expect(line.msg).toContain("message size exceeds maximum allowed");
  });
});

describe("a stream an earlier version left on a NATS that keeps its state", () => {
  const namespace = testNamespace();
  const names = natsNames(namespace);
  const dataDir = makeDataDir();
  afterAll(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await dropNatsNamespace(namespace);
  });

  it("gets the notice stream's limits at start, its durables take every notice, and its whole-event messages are read as notices", async () => {
    const env = { NATS_URL, NATS_NAMESPACE: namespace };
    const first = await startService({ dataDir, env });
    const account = await provisionAccount(first.env, "pro");
    await waitUntil("the projections at the store's head", () => projectionsCurrent(dataDir));
    await first.stop();

    // What the earlier version left: an unbounded stream, durables filtered by category, whole events as messages (one near 1 MiB).
    const leftBehind = await withNats(async (nc) => {
      const manager = await jetstreamManager(nc);
      const info = await manager.streams.info(names.eventStream);
      await manager.streams.update(names.eventStream, { ...info.config, max_age: 0, max_bytes: -1, max_msg_size: -1, discard: DiscardPolicy.Old });
      for await (const consumer of manager.consumers.list(names.eventStream)) {
        const category = consumer.name.startsWith("usage") ? "quota" : "account";
        await manager.consumers.add(names.eventStream, {
          ...consumer.config,
          durable_name: consumer.name,
          ack_policy: AckPolicy.Explicit,
          filter_subject: `${names.subjectRoot}.${category}`,
        });
      }
      const events = readDb(path.join(dataDir, "events.sqlite"), (db) => db.prepare("SELECT * FROM events ORDER BY global_position").all()) as Array<
        Record<string, string | number>
      >;
      const whole = events.map((row) => ({
        eventId: row["event_id"],
        streamName: row["stream_name"],
        streamRevision: row["stream_revision"],
        globalPosition: row["global_position"],
        type: row["type"],
        data: JSON.parse(String(row["data"])) as unknown,
        metadata: JSON.parse(String(row["metadata"])) as unknown,
        recordedAt: row["recorded_at"],
      }));
      const js = jetstream(nc);
      for (const event of whole) await js.publish(`${names.subjectRoot}.account`, JSON.stringify(event));
      await js.publish(`${names.subjectRoot}.account`, JSON.stringify({ ...whole.at(-1)!, padding: "p".repeat(900_000) }));
      return (await manager.streams.info(names.eventStream)).state.messages;
    });

    const second = await startService({ dataDir, env });
    try {
      const stream = await withNats(async (nc) => (await jetstreamManager(nc)).streams.info(names.eventStream));
      expect(stream.config.max_age).toBe(24 * 3600 * 1e9);
      expect(stream.config.max_bytes).toBe(256 * 1024 * 1024);
      expect(stream.config.max_msg_size).toBe(4 * 1024);
      // Its old messages stay, for the limits to remove in time.
      expect(stream.state.messages).toBeGreaterThanOrEqual(leftBehind);

      const fresh = await keyWorksWithin(second, account.accountId);
      expect((await generate(second, fresh.key)).status).toBe(200);
      await waitUntil("the projections at the store's head", () => projectionsCurrent(dataDir));
      const filters = await withNats(async (nc) => {
        const found = [];
        for await (const consumer of (await jetstreamManager(nc)).consumers.list(names.eventStream)) found.push(consumer.config.filter_subject ?? "");
        return found;
      });
      expect(filters.length).toBeGreaterThan(0);
      expect(filters.every((filter) => filter === "")).toBe(true);
    } finally {
      await second.stop();
    }
    // The old whole events agree with the store: none of them was dropped as a forgery.
    expect(second.logs()).not.toContain("dropped bus message");
  });
});
