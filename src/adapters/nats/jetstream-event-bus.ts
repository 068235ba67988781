import { AckPolicy, DeliverPolicy, type JsMsg, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { nanos } from "@nats-io/transport-node";
import { Effect, Layer, Option } from "effect";
import { EventBus, type EventBusShape, eventCategory, type Subscription } from "../../ports/event-bus.ts";
import { DependencyUnavailable } from "../../ports/errors.ts";
import type { RecordedEvent } from "../../ports/event-store.ts";
import { compareAndSwap } from "./kv-compare-and-swap.ts";
import { NatsClient } from "./nats-connection.ts";
import { natsNames, natsToken } from "./nats-names.ts";

export interface JetStreamEventBusOptions {
  /** Names the stream, subjects and buckets (see natsNames). */
  readonly namespace: string;
  /** How long JetStream remembers an event id (Nats-Msg-Id) to drop a repeat. */
  readonly duplicateWindowMs?: number;
  /** An unacknowledged event is handed over again after this long (a consumer that died mid-event). */
  readonly ackWaitMs?: number;
  /** How long a failed event waits before it is handed over again. */
  readonly redeliveryDelayMs?: number;
  /** A durable nobody consumed for this long is removed by the server; its next consumer starts over (idempotent projections skip what they hold). */
  readonly inactiveDurableMs?: number;
}

const DAY_MS = 24 * 60 * 60_000;

const unavailable = (what: string) => (cause: unknown) => new DependencyUnavailable({ dependency: `nats: ${what}`, cause });

const isNotFound = (error: unknown) =>
  error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamNotFound || error.code === JetStreamApiCodes.ConsumerNotFound);

/**
 * The event bus on NATS JetStream. Events go to `<namespace>.events.<category>` with the event id
 * as Nats-Msg-Id, into one file-backed stream, so they keep their order and a repeat within the
 * duplicate window is dropped. Durable pull consumers hand over one event at a time
 * (max_ack_pending 1): consumers sharing a durable, in several processes, still apply events in
 * order. The forwarder's checkpoint is a KV entry named after the stream's creation time, so a
 * stream made anew (deleted by hand) starts without one.
 */
export const jetStreamEventBusLayer = (options: JetStreamEventBusOptions) =>
  Layer.effect(EventBus)(
    Effect.gen(function* () {
      const nats = yield* NatsClient;
      const names = natsNames(options.namespace);
      const duplicateWindowMs = options.duplicateWindowMs ?? 10 * 60_000;
      const ackWaitMs = options.ackWaitMs ?? 5_000;
      const redeliveryDelayMs = options.redeliveryDelayMs ?? 200;
      const stream = names.eventStream;

      /** Makes the stream if it is missing; returns its creation time. */
      const ensureStream = async (): Promise<string> => {
        const config = {
          name: stream,
          subjects: [`${names.subjectRoot}.>`],
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          duplicate_window: nanos(duplicateWindowMs),
        };
        try {
          const info = await nats.manager.streams.info(stream);
          if (info.config.duplicate_window !== config.duplicate_window) await nats.manager.streams.update(stream, config);
          return info.created;
        } catch (error) {
          if (!isNotFound(error)) throw error;
          return (await nats.manager.streams.add(config)).created;
        }
      };

      const checkpoints: KV = yield* Effect.tryPromise({
        try: async () => {
          await ensureStream();
          return nats.kv.create(names.checkpointBucket, { history: 1 });
        },
        catch: unavailable("event stream"),
      });
      // The checkpoint belongs to one incarnation of the stream: set by publishedThrough.
      let checkpointKey: string | undefined;
      const keyOfStream = (created: string) => `published-through.${Date.parse(created)}`;

      const ensureConsumer = async (subscription: Subscription): Promise<string> => {
        const durable = natsToken(subscription.durable);
        await ensureStream();
        await nats.manager.consumers.add(stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          max_ack_pending: 1,
          ack_wait: nanos(ackWaitMs),
          inactive_threshold: nanos(options.inactiveDurableMs ?? 7 * DAY_MS),
          ...(subscription.category === undefined ? {} : { filter_subject: `${names.subjectRoot}.${natsToken(subscription.category)}` }),
        });
        return durable;
      };

      const deliver = <E, R>(message: JsMsg, handle: (event: RecordedEvent) => Effect.Effect<void, E, R>) =>
        Effect.gen(function* () {
          let event: RecordedEvent;
          try {
            event = message.json<RecordedEvent>();
          } catch (cause) {
            // Not ours: nothing would ever read it; dropping it keeps the durable moving.
            yield* Effect.logError(`undecodable message ${message.seq} on ${message.subject}; terminated`, cause);
            message.term();
            return;
          }
          // An event in hand when the consumer stops stays unacknowledged: it comes again after the ack wait.
          const exit = yield* Effect.exit(handle(event));
          if (exit._tag === "Success") {
            message.ack();
            return;
          }
          yield* Effect.logWarning(`event handler failed on stream message ${message.seq}; handing it over again`, exit.cause);
          message.nak(redeliveryDelayMs);
        });

      const shape: EventBusShape = {
        publish: (event) =>
          Effect.tryPromise({
            try: () =>
              nats.jetstream.publish(`${names.subjectRoot}.${natsToken(eventCategory(event.streamName))}`, JSON.stringify(event), {
                msgID: event.eventId,
              }),
            catch: unavailable("publish"),
          }).pipe(Effect.map((ack) => ({ sequence: ack.seq, duplicate: ack.duplicate }))),

        consume: (subscription, handle) =>
          Effect.gen(function* () {
            const durable = yield* Effect.tryPromise({ try: () => ensureConsumer(subscription), catch: unavailable("consumer") });
            const consumer = yield* Effect.tryPromise({ try: () => nats.jetstream.consumers.get(stream, durable), catch: unavailable("consumer") });
            const iterator = yield* Effect.acquireRelease(
              Effect.tryPromise({ try: () => consumer.consume({ max_messages: 16 }), catch: unavailable("consume") }).pipe(
                Effect.map((running) => ({ running, iterator: running[Symbol.asyncIterator]() })),
              ),
              // close() only settles once the iterator moves on; return() moves it (ending its loop).
              ({ running, iterator }) =>
                Effect.promise(async () => {
                  void running.close();
                  await iterator.return?.(undefined);
                }),
            ).pipe(Effect.map(({ iterator }) => iterator));
            return yield* Effect.forever(
              Effect.gen(function* () {
                const next = yield* Effect.tryPromise({ try: () => iterator.next(), catch: unavailable("consume") });
                if (next.done === true) return yield* new DependencyUnavailable({ dependency: `nats: consumer ${durable} stopped` });
                yield* deliver(next.value, handle);
              }),
            );
          }).pipe(Effect.scoped),

        deleteSubscription: (durable) =>
          Effect.tryPromise({
            try: async () => {
              try {
                await nats.manager.consumers.delete(stream, natsToken(durable));
              } catch (error) {
                if (!isNotFound(error)) throw error;
              }
            },
            catch: unavailable("delete consumer"),
          }),

        publishedThrough: Effect.tryPromise({
          try: async () => {
            checkpointKey = keyOfStream(await ensureStream());
            const entry = await checkpoints.get(checkpointKey);
            return entry !== null && entry.operation === "PUT" ? Option.some(Number(entry.string())) : Option.none<number>();
          },
          catch: unavailable("forwarder checkpoint"),
        }),

        markPublishedThrough: (position) =>
          Effect.tryPromise({
            try: async () => {
              checkpointKey ??= keyOfStream(await ensureStream());
              await compareAndSwap(checkpoints, checkpointKey, (current) => ({
                write: current !== undefined && Number(current) >= position ? undefined : String(position),
                result: undefined,
              }));
            },
            catch: unavailable("forwarder checkpoint"),
          }),
      };
      return shape;
    }),
  );
