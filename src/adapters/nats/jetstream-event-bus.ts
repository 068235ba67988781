import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, type JsMsg, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { InvalidArgumentError, nanos } from "@nats-io/transport-node";
import { Effect, Layer, Option, Result } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { type BusMessage, EventBus, type EventBusShape, eventCategory, type EventNotice, PublishRejected, type Subscription } from "../../ports/event-bus.ts";
import { decodeNotice, encodeNotice } from "./event-notice-message.ts";
import { defaultEventStreamLimits, differsFrom, type EventStreamLimits, streamLimitsConfig } from "./event-stream-limits.ts";
import { compareAndSwap } from "./kv-compare-and-swap.ts";
import { NatsClient } from "./nats-connection.ts";
import { natsNames, natsToken } from "./nats-names.ts";

export interface JetStreamEventBusOptions {
  /** Names the stream, subjects and buckets (see natsNames). */
  readonly namespace: string;
  /**
   * The identity of the event store whose events this bus carries (see store-identity.ts). The
   * stream, its consumers and the forwarder's checkpoint belong to one store: a stream found
   * holding another store's events is emptied and taken over, never read as this store's.
   */
  readonly storeIdentity: string;
  /** How long JetStream remembers an event id (Nats-Msg-Id) to drop a repeat. */
  readonly duplicateWindowMs?: number;
  /** An unacknowledged event is handed over again after this long (a consumer that died mid-event). */
  readonly ackWaitMs?: number;
  /** How long a failed event waits before it is handed over again. */
  readonly redeliveryDelayMs?: number;
  /** A durable nobody consumed for this long is removed by the server; its next consumer starts over (idempotent projections skip what they hold). */
  readonly inactiveDurableMs?: number;
  /** What the stream keeps (defaultEventStreamLimits unless given). */
  readonly limits?: EventStreamLimits;
}

const DAY_MS = 24 * 60 * 60_000;

const unavailable = (what: string) => (cause: unknown) => new DependencyUnavailable({ dependency: `nats: ${what}`, cause });

const isNotFound = (error: unknown) =>
  error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamNotFound || error.code === JetStreamApiCodes.ConsumerNotFound);

/**
 * A publish that the same message can never pass: the client refuses it (over the server's
 * max_payload, a header it cannot write) or the stream answers that the message itself is bad
 * (status 400: over max_msg_size). No responders, timeouts, a lost connection: those pass later.
 */
const refusedForGood = (error: unknown) => error instanceof InvalidArgumentError || (error instanceof JetStreamApiError && error.status === 400);

/** Subject tokens stay short whatever a stream is named: a subject over the server's control-line limit would cost the connection. */
const SUBJECT_TOKEN_LENGTH = 64;

/**
 * The event bus on NATS JetStream. Notices go to `<namespace>.events.<category>` with the event id
 * as Nats-Msg-Id, into one file-backed stream with age, size and message-size limits, so they keep
 * their order and a repeat within the duplicate window is dropped. Durable pull consumers hand
 * over one notice at a time (max_ack_pending 1): consumers sharing a durable, in several
 * processes, still take them in order. The forwarder's checkpoint is a KV entry named after the
 * stream's creation time and the store, so a stream made anew (deleted by hand) or taken over by
 * another store starts without one.
 *
 * A stream outlives a store: a database reset, a second environment or a migrated store under the
 * same NATS_NAMESPACE meets the stream, consumers and checkpoint an earlier store left. So the
 * stream's owner (a store identity) is recorded in the checkpoint bucket; a bus opened for another
 * store logs both identities, empties the stream and deletes its consumers before it uses it.
 * Nothing is lost by that: the bus only notifies, the store is the truth (see projection-runner).
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
      const limits = streamLimitsConfig(options.limits ?? defaultEventStreamLimits, duplicateWindowMs);

      /**
       * Makes the stream if it is missing, or sets its limits where they differ (a stream an earlier
       * version made, unbounded, holding whole events: those messages stay, read as notices, until
       * the limits remove them); returns its creation time.
       */
      const ensureStream = async (): Promise<string> => {
        const config = {
          name: stream,
          subjects: [`${names.subjectRoot}.>`],
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          ...limits,
        };
        try {
          const info = await nats.manager.streams.info(stream);
          if (differsFrom(info.config, limits)) await nats.manager.streams.update(stream, { ...info.config, ...limits });
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
      const storeToken = natsToken(options.storeIdentity);
      const incarnation = (created: string) => String(Date.parse(created));

      /**
       * Makes this store the owner of the stream's current incarnation. An owner that is another
       * store, or none while the stream holds messages (written before owners were recorded), is
       * replaced: of several processes of this store starting at once, the one whose swap wins
       * empties the stream and deletes the consumers, before anything of this store is on it.
       */
      const claimStream = async (): Promise<{ readonly created: string; readonly tookOver?: { readonly from: string; readonly purged: number } }> => {
        const created = await ensureStream();
        const ownerKey = `owner.${incarnation(created)}`;
        const messages = (await nats.manager.streams.info(stream)).state.messages;
        const previous = await compareAndSwap(checkpoints, ownerKey, (current) => ({
          write: current === options.storeIdentity ? undefined : options.storeIdentity,
          result: current,
        }));
        if (previous === options.storeIdentity || (previous === undefined && messages === 0)) return { created };
        const { purged } = await nats.manager.streams.purge(stream);
        for await (const consumer of nats.manager.consumers.list(stream)) {
          await nats.manager.consumers.delete(stream, consumer.name).catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
        }
        // Checkpoints of other stores would never be read again: they go too.
        for await (const key of await checkpoints.keys("published-through.>")) {
          if (!key.endsWith(`.${storeToken}`)) await checkpoints.purge(key);
        }
        return { created, tookOver: { from: previous ?? "(not recorded: written before stores were named)", purged } };
      };

      /** Claims the stream (see claimStream) and says so when it was another store's; returns its creation time. */
      const claim = Effect.tryPromise({ try: claimStream, catch: unavailable("event stream") }).pipe(
        Effect.tap(({ tookOver }) =>
          tookOver === undefined
            ? Effect.void
            : Effect.logWarning(
                `NATS stream ${stream} (namespace ${options.namespace}) held the events of store ${tookOver.from}, but this service's event store is ${options.storeIdentity}: ` +
                  `that store's stream contents (${tookOver.purged} messages), durable consumers and forwarder checkpoint are not this store's. ` +
                  `Emptied the stream and deleted its consumers; this store's events are published again from its own beginning.`,
              ),
        ),
        Effect.map(({ created }) => created),
      );
      yield* claim;
      // The checkpoint belongs to one incarnation of the stream and one store: set by publishedThrough.
      let checkpointKey: string | undefined;
      const keyOfStream = (created: string) => `published-through.${incarnation(created)}.${storeToken}`;

      // Made or updated: a durable of an earlier version, filtered by category, takes every notice from now on.
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
        });
        return durable;
      };

      const deliver = <E, R>(message: JsMsg, handle: (notice: EventNotice, message: BusMessage) => Effect.Effect<void, E, R>) =>
        Effect.gen(function* () {
          const notice = decodeNotice(message.string());
          if (Result.isFailure(notice)) {
            // Not ours: nothing would ever read it; dropping it keeps the durable moving.
            yield* Effect.logWarning(`dropped bus message: subject ${message.subject}, sequence ${message.seq}: ${notice.failure}; terminated`);
            message.term();
            return;
          }
          // A notice in hand when the consumer stops stays unacknowledged: it comes again after the ack wait.
          const exit = yield* Effect.exit(handle(notice.success, { subject: message.subject, sequence: message.seq }));
          if (exit._tag === "Success") {
            message.ack();
            return;
          }
          yield* Effect.logWarning(`notice handler failed on stream message ${message.seq}; handing it over again`, exit.cause);
          message.nak(redeliveryDelayMs);
        });

      const shape: EventBusShape = {
        publish: (event) =>
          Effect.tryPromise({
            try: () =>
              nats.jetstream.publish(`${names.subjectRoot}.${natsToken(eventCategory(event.streamName)).slice(0, SUBJECT_TOKEN_LENGTH)}`, encodeNotice(event), {
                msgID: event.eventId,
              }),
            catch: (cause) =>
              refusedForGood(cause)
                ? new PublishRejected({
                    eventId: event.eventId,
                    globalPosition: event.globalPosition,
                    reason: cause instanceof Error ? cause.message : String(cause),
                    cause,
                  })
                : unavailable("publish")(cause),
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

        // The forwarder reads it at every (re)start: the stream is claimed again then, in case another store took it meanwhile.
        publishedThrough: claim.pipe(
          Effect.flatMap((created) =>
            Effect.tryPromise({
              try: async () => {
                checkpointKey = keyOfStream(created);
                const entry = await checkpoints.get(checkpointKey);
                return entry !== null && entry.operation === "PUT" ? Option.some(Number(entry.string())) : Option.none<number>();
              },
              catch: unavailable("forwarder checkpoint"),
            }),
          ),
        ),

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
