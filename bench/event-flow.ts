/**
 * Events per second through the event flow, each against its raw baseline measured in the same run:
 * the outbox forwarder draining a SQLite store onto JetStream against plain sequential JetStream
 * publishes of the same events; the usage projection applying them from a durable consumer against
 * a bare consume-and-ack loop on the same kind of consumer. The in-process bus shows what the
 * port costs without a network. Usage: npx tsx bench/event-flow.ts [events]
 */

import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, nanos } from "@nats-io/transport-node";
import { Context, Deferred, Effect, Fiber, Layer, Option } from "effect";
import { inProcessEventBusLayer } from "../src/adapters/event-bus/in-process-event-bus.ts";
import { sqliteEventStoreLayer } from "../src/adapters/event-store/sqlite-event-store.ts";
import { jetStreamEventBusLayer } from "../src/adapters/nats/jetstream-event-bus.ts";
import { natsConnectionLayer } from "../src/adapters/nats/nats-connection.ts";
import { natsNames } from "../src/adapters/nats/nats-names.ts";
import { sqliteProjectionsLayer } from "../src/adapters/projections/sqlite-projections.ts";
import { forwardEvents } from "../src/application/event-sourcing/forwarder.ts";
import { makeStoreCheckedFollower } from "../src/application/event-sourcing/projection-runner.ts";
import { EventBus } from "../src/ports/event-bus.ts";
import { EventStore, type RecordedEvent } from "../src/ports/event-store.ts";
import { UsageProjection } from "../src/ports/projections.ts";
import { dropNatsNamespace, NATS_URL, testNamespace } from "../test/support/nats.ts";

const total = Number(process.argv[2] ?? 3_000);
const dir = mkdtempSync(join(tmpdir(), "its-bench-flow-"));
const namespaces: Array<string> = [];
const namespace = () => {
  const created = testNamespace();
  namespaces.push(created);
  return created;
};

const storeLayer = sqliteEventStoreLayer({ path: join(dir, "events.sqlite"), pollInterval: "5 millis" });

/** The store's events, quota reservations and commits as the service writes them. */
const fillStore = Effect.gen(function* () {
  const store = yield* EventStore;
  for (let i = 0; i < total / 2; i++) {
    const requestId = randomUUID();
    const at = new Date().toISOString();
    yield* store.appendToStream(
      "quota-acc_bench-2026-11",
      [
        {
          type: "QuotaReserved",
          data: { requestId, keyId: `key${i % 5}`, operation: "generate", accountId: "acc_bench", period: "2026-11", limit: null, expiresAt: at, at },
          metadata: { requestId },
        },
        { type: "QuotaCommitted", data: { requestId, at }, metadata: { requestId } },
      ],
      { expectedRevision: "any" },
    );
  }
  const events: Array<RecordedEvent> = [];
  for (;;) {
    const page = yield* store.readAll({ after: events.at(-1)?.globalPosition ?? 0, limit: 1_000 });
    events.push(...page);
    if (page.length < 1_000) return events;
  }
}).pipe(Effect.provide(storeLayer));

const rawPublish = async (events: ReadonlyArray<RecordedEvent>, ns: string) => {
  const nc = await connect({ servers: NATS_URL });
  const names = natsNames(ns);
  await (await jetstreamManager(nc)).streams.add({ name: names.eventStream, subjects: [`${names.subjectRoot}.>`], duplicate_window: nanos(600_000) });
  const js = jetstream(nc);
  const started = performance.now();
  // The same notices the forwarder publishes: id and position.
  for (const event of events)
    await js.publish(`${names.subjectRoot}.quota`, JSON.stringify({ eventId: event.eventId, globalPosition: event.globalPosition }), { msgID: event.eventId });
  const seconds = (performance.now() - started) / 1_000;
  await nc.close();
  return seconds;
};

const rawConsume = async (ns: string) => {
  const nc = await connect({ servers: NATS_URL });
  const { eventStream } = natsNames(ns);
  await (
    await jetstreamManager(nc)
  ).consumers.add(eventStream, {
    durable_name: "raw",
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: 1,
  });
  const started = performance.now();
  const messages = await (await jetstream(nc).consumers.get(eventStream, "raw")).consume({ max_messages: 16 });
  let seen = 0;
  for await (const message of messages) {
    message.ack();
    if (++seen === total) break;
  }
  const seconds = (performance.now() - started) / 1_000;
  await nc.close();
  return seconds;
};

/** The store the benchmark fills: the bus is opened for it (see JetStreamEventBusOptions.storeIdentity). */
const BENCH_STORE = "bench-store";

/** The forwarder from the store to a bus, until the bus's checkpoint reaches the last event. */
const forward = <E>(busLayer: Layer.Layer<EventBus, E>, last: number) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(Layer.merge(storeLayer, busLayer));
        const bus = Context.get(context, EventBus);
        const started = performance.now();
        const fiber = yield* forwardEvents({ startWithoutCheckpoint: Effect.succeed(0) }).pipe(Effect.provide(Layer.succeedContext(context)), Effect.forkChild);
        while (Option.getOrElse(yield* bus.publishedThrough, () => 0) < last) yield* Effect.sleep("2 millis");
        const seconds = (performance.now() - started) / 1_000;
        yield* Fiber.interrupt(fiber);
        return seconds;
      }),
    ),
  );

/** The usage projection, fed from a durable consumer of the NATS stream `ns` already holds. */
const project = (ns: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(
          Layer.mergeAll(
            jetStreamEventBusLayer({ namespace: ns, storeIdentity: BENCH_STORE }).pipe(Layer.provide(natsConnectionLayer({ servers: NATS_URL }))),
            sqliteProjectionsLayer({ path: join(dir, `projections-${ns}.sqlite`) }),
            storeLayer,
          ),
        );
        const bus = Context.get(context, EventBus);
        // As the service runs it: each message a notice, checked against the store (see projection-runner.ts).
        const follower = makeStoreCheckedFollower(Context.get(context, UsageProjection));
        const done = yield* Deferred.make<void>();
        let applied = 0;
        const started = performance.now();
        const fiber = yield* bus
          .consume({ durable: "bench-usage" }, (event, message) =>
            follower
              .onNotice(event, message)
              .pipe(Effect.provide(Layer.succeedContext(context)), Effect.andThen(++applied === total ? Deferred.succeed(done, undefined) : Effect.void)),
          )
          .pipe(Effect.forkChild);
        yield* Deferred.await(done);
        const seconds = (performance.now() - started) / 1_000;
        yield* Fiber.interrupt(fiber);
        return seconds;
      }),
    ),
  );

try {
  const events = await Effect.runPromise(fillStore);
  const last = events.at(-1)!.globalPosition;
  const rawNs = namespace();
  const forwardedNs = namespace();
  const rows = [
    { what: "raw JetStream publish, sequential, with Nats-Msg-Id (baseline)", seconds: await rawPublish(events, rawNs), baseline: true },
    {
      what: "forwarder: SQLite store → JetStream (publish + checkpoint)",
      seconds: await forward(
        jetStreamEventBusLayer({ namespace: forwardedNs, storeIdentity: BENCH_STORE }).pipe(Layer.provide(natsConnectionLayer({ servers: NATS_URL }))),
        last,
      ),
      baseline: false,
    },
    { what: "forwarder: SQLite store → in-process bus", seconds: await forward(inProcessEventBusLayer(), last), baseline: false },
    { what: "raw durable consume + ack, max_ack_pending 1 (baseline)", seconds: await rawConsume(rawNs), baseline: true },
    {
      what: "usage projection from a durable consumer (each message checked against the store, store events applied, ack)",
      seconds: await project(forwardedNs),
      baseline: false,
    },
  ];
  console.log(`${total} quota events (reservations and commits) through the event flow\n`);
  console.log("| path | seconds | events/s | speed vs its baseline |");
  console.log("|---|---:|---:|---:|");
  let baseline = 1;
  for (const row of rows) {
    if (row.baseline) baseline = row.seconds;
    console.log(`| ${row.what} | ${row.seconds.toFixed(3)} | ${Math.round(total / row.seconds)} | ${(baseline / row.seconds).toFixed(2)}× |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  for (const ns of namespaces) await dropNatsNamespace(ns);
}
