import { Effect, Layer } from "effect";
import { sqliteEventStoreLayer } from "../../src/adapters/event-store/sqlite-event-store.ts";
import { jetStreamEventBusLayer } from "../../src/adapters/nats/jetstream-event-bus.ts";
import { natsConnectionLayer } from "../../src/adapters/nats/nats-connection.ts";
import { forwardEvents } from "../../src/application/event-sourcing/forwarder.ts";
import { EventBus } from "../../src/ports/event-bus.ts";

/**
 * The outbox forwarder alone, in its own process, as the service runs it: a SQLite event store and
 * a NATS namespace given as arguments. It prints one JSON line when it publishes its first event,
 * so a test can see where a restarted forwarder resumed.
 */
const [storePath, namespace, servers] = process.argv.slice(2);
if (storePath === undefined || namespace === undefined || servers === undefined)
  throw new Error("usage: forwarder-worker <events.sqlite> <namespace> <nats url>");

const reportingBus = Layer.effect(EventBus)(
  Effect.gen(function* () {
    const bus = yield* EventBus;
    let reported = false;
    return {
      ...bus,
      publish: (event) =>
        bus.publish(event).pipe(
          Effect.tap((published) =>
            Effect.sync(() => {
              if (reported) return;
              reported = true;
              process.stdout.write(`${JSON.stringify({ firstPublished: event.globalPosition, duplicate: published.duplicate })}\n`);
            }),
          ),
        ),
    };
  }),
).pipe(Layer.provide(jetStreamEventBusLayer({ namespace, storeIdentity: `sqlite:${storePath}` })), Layer.provide(natsConnectionLayer({ servers })));

Effect.runFork(
  forwardEvents({ startWithoutCheckpoint: Effect.succeed(0) }).pipe(
    Effect.provide(Layer.merge(sqliteEventStoreLayer({ path: storePath, pollInterval: "20 millis" }), reportingBus)),
  ),
);
