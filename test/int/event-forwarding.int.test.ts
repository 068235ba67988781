import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { Context, Deferred, type Duration, Effect, Fiber, Layer, Logger, Option, type Scope } from "effect";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { jetStreamEventBusLayer } from "../../src/adapters/nats/jetstream-event-bus.ts";
import { natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import { natsNames } from "../../src/adapters/nats/nats-names.ts";
import { sqliteProjectionsLayer } from "../../src/adapters/projections/sqlite-projections.ts";
import { forwardEvents } from "../../src/application/event-sourcing/forwarder.ts";
import { rebuildProjection, runProjection } from "../../src/application/event-sourcing/projection-runner.ts";
import { EventBus, type EventBusShape, type EventNotice, noticeOf } from "../../src/ports/event-bus.ts";
import { EventStore, type EventStoreShape, type NewEvent, type RecordedEvent } from "../../src/ports/event-store.ts";
import { KeyProjection, type KeyProjectionShape, UsageProjection, type UsageProjectionShape } from "../../src/ports/projections.ts";
import { canRestartNats, dropNatsNamespace, NATS_URL, startNats, stopNats, testNamespace, waitForNats } from "../support/nats.ts";

/**
 * The forwarder and the projections against the real NATS server: order, a NATS restart in the
 * middle of a load, a forwarder killed with SIGKILL, and rebuilt projections against live ones.
 */
const NODE = process.execPath;
const ROOT = join(import.meta.dirname, "../..");

afterAll(async () => {
  // Whatever happened in a test, the shared server must be running again.
  if (!canRestartNats) return;
  startNats();
  await waitForNats();
});
if (!canRestartNats)
  console.warn("[event forwarding] NATS restart: SKIPPED (the load runs without it) — needs the local nats-server on 127.0.0.1:4222 under start-stop-daemon");

interface World {
  readonly store: EventStoreShape;
  readonly bus: EventBusShape;
  readonly usage: UsageProjectionShape;
  readonly keys: KeyProjectionShape;
  readonly namespace: string;
  readonly dir: string;
  readonly layer: Layer.Layer<EventStore | EventBus>;
}

/** A SQLite store, a fresh NATS namespace and a projections database, all removed afterwards. */
const world = (options: { readonly pollInterval?: Duration.Input } = {}): Effect.Effect<World, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "its-forwarding-"))),
      (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true })),
    );
    const namespace = yield* Effect.acquireRelease(Effect.sync(testNamespace), (ns) => Effect.promise(() => dropNatsNamespace(ns)));
    const layer = Layer.mergeAll(
      sqliteEventStoreLayer({ path: join(dir, "events.sqlite"), ...(options.pollInterval ? { pollInterval: options.pollInterval } : {}) }),
      // The identity forwarder-worker.ts gives the same store, so that its bus and this one are one.
      jetStreamEventBusLayer({ namespace, storeIdentity: `sqlite:${join(dir, "events.sqlite")}`, ackWaitMs: 2_000 }).pipe(
        Layer.provide(natsConnectionLayer({ servers: NATS_URL })),
      ),
      sqliteProjectionsLayer({ path: join(dir, "projections.sqlite") }),
    );
    const context = yield* Layer.build(layer);
    return {
      store: Context.get(context, EventStore),
      bus: Context.get(context, EventBus),
      usage: Context.get(context, UsageProjection),
      keys: Context.get(context, KeyProjection),
      namespace,
      dir,
      layer: Layer.succeedContext(context),
    };
  });

const at = () => new Date().toISOString();
const accountEvents = (accountId: string, keyId: string): ReadonlyArray<NewEvent> => [
  { type: "AccountOpened", data: { accountId, email: `${accountId}@example.com`, name: "", plan: "enterprise", at: at() } },
  { type: "ApiKeyIssued", data: { accountId, keyId, name: "load", secretHash: "h", at: at() } },
];
const transformation = (accountId: string, keyId: string): ReadonlyArray<NewEvent> => {
  const requestId = randomUUID();
  const metadata = { requestId, keyId };
  return [
    {
      type: "QuotaReserved",
      data: { requestId, keyId, operation: "generate", accountId, period: "2026-11", limit: null, expiresAt: at(), at: at() },
      metadata,
    },
    { type: "QuotaCommitted", data: { requestId, at: at() }, metadata },
  ];
};

/** `writers` accounts, each appending `requests` transformations (two events each), `pauseMs` apart. */
const appendLoad = (store: EventStoreShape, options: { writers: number; requests: number; pauseMs: number; tag: string }) =>
  Effect.forEach(
    Array.from({ length: options.writers }, (_, w) => `acc_${options.tag}${w}`),
    (accountId) =>
      Effect.gen(function* () {
        yield* store.appendToStream(`account-${accountId}`, accountEvents(accountId, `key${accountId}`), { expectedRevision: "any" });
        for (let i = 0; i < options.requests; i++) {
          yield* store.appendToStream(`quota-${accountId}-2026-11`, transformation(accountId, `key${accountId}`), { expectedRevision: "any" });
          if (options.pauseMs > 0) yield* Effect.sleep(options.pauseMs);
        }
        return accountId;
      }),
    { concurrency: "unbounded" },
  );

const allEvents = (store: EventStoreShape) =>
  Effect.gen(function* () {
    const events: Array<RecordedEvent> = [];
    for (;;) {
      const page = yield* store.readAll({ after: events.at(-1)?.globalPosition ?? 0, limit: 1000 });
      events.push(...page);
      if (page.length < 1000) return events;
    }
  });

/** Everything the namespace's stream holds, in stream order, read with an ordered consumer. */
const streamContents = async (namespace: string): Promise<ReadonlyArray<EventNotice>> => {
  const nc = await connect({ servers: NATS_URL });
  try {
    const { eventStream } = natsNames(namespace);
    const total = (await (await jetstreamManager(nc)).streams.info(eventStream)).state.messages;
    const contents: Array<EventNotice> = [];
    if (total === 0) return contents;
    const messages = await (await jetstream(nc).consumers.get(eventStream)).consume();
    for await (const message of messages) {
      contents.push(message.json<EventNotice>());
      if (contents.length === total) break;
    }
    return contents;
  } finally {
    await nc.close();
  }
};

const streamCount = async (namespace: string): Promise<number> => {
  const nc = await connect({ servers: NATS_URL });
  try {
    return (await (await jetstreamManager(nc)).streams.info(natsNames(namespace).eventStream)).state.messages;
  } finally {
    await nc.close();
  }
};

const waitFor = (what: string, check: Effect.Effect<boolean, unknown>, timeoutMs = 30_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs;
    while (!(yield* check)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`));
      yield* Effect.sleep("25 millis");
    }
  });

const ids = (events: ReadonlyArray<EventNotice>) => events.map((event) => event.eventId);

const usageRows = (usage: UsageProjectionShape, accounts: ReadonlyArray<string>) =>
  Effect.forEach(accounts, (accountId) => usage.usageOf(accountId).pipe(Effect.map((snapshot) => snapshot.value)));
const keyRows = (keys: KeyProjectionShape, accounts: ReadonlyArray<string>) =>
  Effect.forEach(accounts, (accountId) => keys.keysOf(accountId).pipe(Effect.map((snapshot) => snapshot.value)));

const percentile = (values: ReadonlyArray<number>, p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

describe("event forwarding over NATS JetStream", () => {
  it("publishes every event once, in store order, and measures throughput and lag", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const w = yield* world();
          // A backlog first: how fast does the forwarder drain it?
          yield* appendLoad(w.store, { writers: 10, requests: 150, pauseMs: 0, tag: "b" });
          const backlog = (yield* allEvents(w.store)).length;
          const started = performance.now();
          yield* forwardEvents({ startWithoutCheckpoint: Effect.succeed(0) }).pipe(Effect.provide(w.layer), Effect.forkScoped);
          yield* waitFor("the backlog on the bus", Effect.promise(() => streamCount(w.namespace)).pipe(Effect.map((n) => n === backlog)));
          const backlogSeconds = (performance.now() - started) / 1000;

          // Then live appends from several writers, each event timed from its append to its delivery.
          const arrivals = new Map<string, number>();
          const consumer = yield* w.bus
            .consume({ durable: "lag-probe" }, (event) => Effect.sync(() => void arrivals.set(event.eventId, Date.now())))
            .pipe(Effect.forkScoped);
          yield* waitFor(
            "the probe through the backlog",
            Effect.sync(() => arrivals.size === backlog),
          );
          yield* appendLoad(w.store, { writers: 3, requests: 60, pauseMs: 15, tag: "l" });
          const stored = yield* allEvents(w.store);
          yield* waitFor(
            "every event at the probe",
            Effect.sync(() => arrivals.size === stored.length),
          );
          yield* Fiber.interrupt(consumer);

          // Notices only: each event's id and position, nothing more.
          const published = yield* Effect.promise(() => streamContents(w.namespace));
          expect(published).toEqual(stored.map(noticeOf));
          const lags = stored.slice(backlog).map((event) => arrivals.get(event.eventId)! - Date.parse(event.recordedAt));
          console.log(
            `[forwarder] backlog of ${backlog} events published in ${backlogSeconds.toFixed(2)} s (${Math.round(backlog / backlogSeconds)} events/s); ` +
              `live lag from append to delivery over ${lags.length} events (store polled every 100 ms): p50 ${percentile(lags, 0.5)} ms, p95 ${percentile(lags, 0.95)} ms, max ${Math.max(...lags)} ms`,
          );
          expect(percentile(lags, 0.95)).toBeLessThan(1_000);
        }),
      ),
    ));

  it("loses and duplicates nothing when NATS restarts in the middle of a load; rebuilt projections equal the live ones", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const w = yield* world({ pollInterval: "20 millis" });
          yield* forwardEvents({ startWithoutCheckpoint: Effect.succeed(0) }).pipe(Effect.provide(w.layer), Effect.forkScoped);
          // No store polling here: after the (empty) start-up catch-up, the projections move only on the bus's notices.
          yield* runProjection(w.usage).pipe(Effect.provide(w.layer), Effect.forkScoped);
          yield* runProjection(w.keys).pipe(Effect.provide(w.layer), Effect.forkScoped);

          const load = yield* appendLoad(w.store, { writers: 4, requests: 120, pauseMs: 12, tag: "r" }).pipe(Effect.forkScoped);
          yield* Effect.sleep("700 millis");
          const before = yield* Effect.promise(() => streamCount(w.namespace));
          if (canRestartNats) {
            yield* Effect.acquireUseRelease(
              Effect.sync(stopNats),
              () => Effect.sleep("1500 millis"),
              () =>
                Effect.promise(async () => {
                  startNats();
                  await waitForNats();
                }),
            );
          }
          const accounts = yield* Fiber.join(load);
          const stored = yield* allEvents(w.store);
          expect(before).toBeGreaterThan(0);
          expect(before).toBeLessThan(stored.length);

          const lastQuota = stored.filter((e) => e.streamName.startsWith("quota-")).at(-1)!.globalPosition;
          const lastAccount = stored.filter((e) => e.streamName.startsWith("account-")).at(-1)!.globalPosition;
          yield* waitFor("the stream to hold every event", Effect.promise(() => streamCount(w.namespace)).pipe(Effect.map((n) => n >= stored.length)));
          yield* waitFor(
            "the projections to catch up",
            Effect.all([w.usage.position, w.keys.position]).pipe(Effect.map(([u, k]) => u >= lastQuota && k >= lastAccount)),
          );

          const published = yield* Effect.promise(() => streamContents(w.namespace));
          expect(published).toHaveLength(stored.length);
          expect(ids(published)).toEqual(ids(stored));

          const liveUsage = yield* usageRows(w.usage, accounts);
          const liveKeys = yield* keyRows(w.keys, accounts);
          expect(liveUsage.map((rows) => rows.map((row) => [row.reserved, row.committed, row.released, row.refused]))).toEqual(
            accounts.map(() => [[120, 120, 0, 0]]),
          );

          // From scratch, into a new database: the same rows.
          const fresh = yield* Layer.build(sqliteProjectionsLayer({ path: join(w.dir, "rebuilt.sqlite") }));
          const freshUsage = Context.get(fresh, UsageProjection);
          const freshKeys = Context.get(fresh, KeyProjection);
          expect(yield* rebuildProjection(freshUsage).pipe(Effect.provide(w.layer))).toBe(stored.at(-1)!.globalPosition);
          yield* rebuildProjection(freshKeys).pipe(Effect.provide(w.layer));
          expect(yield* usageRows(freshUsage, accounts)).toEqual(liveUsage);
          expect(yield* keyRows(freshKeys, accounts)).toEqual(liveKeys);
          // And in place, under the running consumers.
          yield* rebuildProjection(w.usage).pipe(Effect.provide(w.layer));
          yield* rebuildProjection(w.keys).pipe(Effect.provide(w.layer));
          expect(yield* usageRows(w.usage, accounts)).toEqual(liveUsage);
          expect(yield* keyRows(w.keys, accounts)).toEqual(liveKeys);
        }),
      ),
    ));

  it("resumes from its checkpoint after SIGKILL, and the stream ends up with each event once, in order", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const w = yield* world();
          yield* appendLoad(w.store, { writers: 6, requests: 250, pauseMs: 0, tag: "k" });
          const total = (yield* allEvents(w.store)).length;
          const worker = () =>
            Effect.acquireRelease(
              Effect.sync(() => {
                const child: ChildProcess = spawn(NODE, ["test/support/forwarder-worker.ts", join(w.dir, "events.sqlite"), w.namespace, NATS_URL], {
                  cwd: ROOT,
                  stdio: ["ignore", "pipe", "inherit"],
                });
                const firstLine = new Promise<{ firstPublished: number; duplicate: boolean }>((resolve) => {
                  let output = "";
                  child.stdout!.on("data", (chunk: Buffer) => {
                    output += chunk.toString();
                    const line = output.split("\n").find((text) => text.startsWith("{"));
                    if (line !== undefined) resolve(JSON.parse(line) as { firstPublished: number; duplicate: boolean });
                  });
                });
                return { child, firstLine };
              }),
              ({ child }) => Effect.sync(() => child.kill("SIGKILL")),
            );

          const first = yield* worker();
          expect((yield* Effect.promise(() => first.firstLine)).firstPublished).toBe(1);
          yield* waitFor("a checkpoint in the middle", w.bus.publishedThrough.pipe(Effect.map((c) => Option.getOrElse(c, () => 0) > 0)), 20_000);
          first.child.kill("SIGKILL");
          yield* Effect.promise(() => new Promise((resolve) => first.child.once("exit", resolve)));
          const checkpoint = Option.getOrThrow(yield* w.bus.publishedThrough);
          const onStreamAtKill = yield* Effect.promise(() => streamCount(w.namespace));
          expect(checkpoint).toBeLessThan(total);
          expect(onStreamAtKill).toBeGreaterThanOrEqual(checkpoint);

          const second = yield* worker();
          const resumed = yield* Effect.promise(() => second.firstLine);
          expect(resumed.firstPublished).toBe(checkpoint + 1);
          // What the first process had published past its checkpoint comes again, and is dropped.
          expect(resumed.duplicate).toBe(onStreamAtKill > checkpoint);
          const later = yield* appendLoad(w.store, { writers: 1, requests: 20, pauseMs: 0, tag: "after" });
          const stored = yield* allEvents(w.store);
          yield* waitFor("every event on the stream", Effect.promise(() => streamCount(w.namespace)).pipe(Effect.map((n) => n >= stored.length)));
          const published = yield* Effect.promise(() => streamContents(w.namespace));
          expect(ids(published)).toEqual(ids(stored));
          expect(later).toHaveLength(1);
          console.log(
            `[forwarder] SIGKILL with the checkpoint at ${checkpoint} and ${onStreamAtKill} events on the stream; resumed at ${resumed.firstPublished} of ${total}`,
          );
        }),
      ),
    ));

  it("takes over a stream that another store left under the namespace: emptied, its consumers deleted, its checkpoint not read", () => {
    const logs: Array<string> = [];
    return Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const namespace = yield* Effect.acquireRelease(Effect.sync(testNamespace), (ns) => Effect.promise(() => dropNatsNamespace(ns)));
          const open = (storeIdentity: string) =>
            Layer.build(
              jetStreamEventBusLayer({ namespace, storeIdentity, ackWaitMs: 2_000 }).pipe(Layer.provide(natsConnectionLayer({ servers: NATS_URL }))),
            ).pipe(Effect.map((context) => Context.get(context, EventBus)));
          const event = (position: number): RecordedEvent => ({
            eventId: randomUUID(),
            streamName: "account-x",
            streamRevision: position - 1,
            globalPosition: position,
            type: "AccountOpened",
            data: {},
            metadata: {},
            recordedAt: at(),
          });
          const takeOne = (bus: EventBusShape) =>
            Effect.gen(function* () {
              const got = yield* Deferred.make<EventNotice>();
              const fiber = yield* bus.consume({ durable: "left-behind" }, (delivered) => Deferred.succeed(got, delivered)).pipe(Effect.forkChild);
              const delivered = yield* Deferred.await(got).pipe(Effect.timeout("10 seconds"));
              yield* Fiber.interrupt(fiber);
              return delivered;
            });
          const consumerCount = Effect.promise(async () => {
            const nc = await connect({ servers: NATS_URL });
            let count = 0;
            for await (const _ of (await jetstreamManager(nc)).consumers.list(natsNames(namespace).eventStream)) count++;
            await nc.close();
            return count;
          });

          const first = yield* open("store-a@1");
          const earlier = [event(1), event(2), event(3)];
          for (const e of earlier) yield* first.publish(e);
          yield* first.markPublishedThrough(3);
          expect((yield* takeOne(first)).eventId).toBe(earlier[0]!.eventId);
          expect(yield* consumerCount).toBe(1);

          const second = yield* open("store-b@7");
          expect(yield* second.publishedThrough).toEqual(Option.none());
          expect(yield* Effect.promise(() => streamCount(namespace))).toBe(0);
          expect(yield* consumerCount).toBe(0);
          expect(logs.join("\n")).toContain("held the events of store store-a@1, but this service's event store is store-b@7");
          const own = event(1);
          yield* second.publish(own);
          expect((yield* takeOne(second)).eventId).toBe(own.eventId);

          // Another process of the same store takes nothing over.
          yield* second.markPublishedThrough(1);
          const checkpointKeys = yield* Effect.promise(async () => {
            const nc = await connect({ servers: NATS_URL });
            const keys: Array<string> = [];
            for await (const key of await (await new Kvm(nc).open(natsNames(namespace).checkpointBucket)).keys("published-through.>")) keys.push(key);
            await nc.close();
            return keys;
          });
          // The first store's checkpoint went with its stream.
          expect(checkpointKeys).toHaveLength(1);
          expect(checkpointKeys[0]).toMatch(/\.store-b_7$/);
          const again = yield* open("store-b@7");
          expect(yield* again.publishedThrough).toEqual(Option.some(1));
          expect(yield* Effect.promise(() => streamCount(namespace))).toBe(1);
          expect(logs.filter((line) => line.includes("held the events of store"))).toHaveLength(1);
        }),
      ).pipe(
        Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push((Array.isArray(message) ? message : [message]).map(String).join(" ")))])),
      ),
    );
  });

  it("drops a message that is not an event, naming it, and hands over the events after it", () => {
    const logs: Array<string> = [];
    return Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const w = yield* world();
          const subject = `${natsNames(w.namespace).subjectRoot}.account`;
          yield* Effect.promise(async () => {
            const nc = await connect({ servers: NATS_URL });
            await jetstream(nc).publish(subject, "{not json");
            await jetstream(nc).publish(
              subject,
              JSON.stringify({
                eventId: "e",
                streamName: "account-x",
                streamRevision: 0,
                globalPosition: -5,
                type: "T",
                data: {},
                metadata: {},
                recordedAt: "",
              }),
            );
            await nc.close();
          });
          yield* w.store.appendToStream("account-y", accountEvents("y", "ky"), { expectedRevision: "any" });
          const stored = yield* allEvents(w.store);
          for (const e of stored) yield* w.bus.publish(e);
          const handed: Array<{ event: EventNotice; sequence: number }> = [];
          const consumer = yield* w.bus
            .consume({ durable: "strict" }, (event, message) => Effect.sync(() => void handed.push({ event, sequence: message.sequence })))
            .pipe(Effect.forkScoped);
          yield* waitFor(
            "the real events",
            Effect.sync(() => handed.length === stored.length),
          );
          yield* Fiber.interrupt(consumer);
          expect(handed.map((h) => h.event)).toEqual(stored.map(noticeOf));
          expect(handed.map((h) => h.sequence)).toEqual(stored.map((_, i) => i + 3));
          expect(logs).toContain(`dropped bus message: subject ${subject}, sequence 1: not JSON; terminated`);
          expect(
            logs.find((line) => line.startsWith(`dropped bus message: subject ${subject}, sequence 2: not an event notice: globalPosition`)),
          ).toBeDefined();
        }),
      ).pipe(
        Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push((Array.isArray(message) ? message : [message]).map(String).join(" ")))])),
      ),
    );
  });
});
