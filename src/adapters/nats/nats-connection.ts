import { connect, type NatsConnection as Connection } from "@nats-io/transport-node";
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Context, Effect, Layer } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";

/** One connection to a NATS server, shared by the adapters that use it (event bus, rate limiter). */
export interface NatsClientShape {
  readonly connection: Connection;
  readonly jetstream: JetStreamClient;
  readonly manager: JetStreamManager;
  readonly kv: Kvm;
}

export class NatsClient extends Context.Service<NatsClient, NatsClientShape>()("NatsClient") {}

export interface NatsConnectionOptions {
  /** e.g. nats://127.0.0.1:4222 (several, comma-separated). */
  readonly servers: string;
  /** How long a JetStream request (publish, KV read or write) may wait for the server. */
  readonly requestTimeoutMs?: number;
  /** Shown in the server's connection list. */
  readonly name?: string;
}

/**
 * Connects at start (a server that cannot be reached then stops the start with a clear error) and
 * then keeps reconnecting for as long as the process lives: an outage makes calls fail with
 * DependencyUnavailable, and everything resumes when the server is back. Drained with the scope.
 */
export const natsConnectionLayer = (options: NatsConnectionOptions) =>
  Layer.effect(NatsClient)(
    Effect.gen(function* () {
      const timeout = options.requestTimeoutMs ?? 2_000;
      const connection = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () =>
            connect({
              servers: options.servers.split(",").map((server) => server.trim()),
              name: options.name ?? "image-transformation-service",
              maxReconnectAttempts: -1,
              reconnectTimeWait: 250,
              timeout,
            }),
          catch: (cause) => new DependencyUnavailable({ dependency: `nats (${options.servers})`, cause }),
        }),
        (nc) => Effect.promise(() => nc.drain().catch(() => nc.close())),
      );
      const manager = yield* Effect.tryPromise({
        try: () => jetstreamManager(connection, { timeout }),
        catch: (cause) => new DependencyUnavailable({ dependency: "nats jetstream (is the server started with -js?)", cause }),
      });
      const js = jetstream(connection, { timeout });
      return { connection, jetstream: js, manager, kv: new Kvm(js) };
    }),
  );
