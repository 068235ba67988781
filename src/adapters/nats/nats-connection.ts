import { readFile } from "node:fs/promises";
import { jetstream, type JetStreamClient, type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { type Authenticator, connect, type NatsConnection as Connection, nkeyAuthenticator } from "@nats-io/transport-node";
import { Context, Effect, Layer } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { maskUrlSecrets } from "../security/url-secrets.ts";
import type { NatsAuth } from "./nats-credentials.ts";

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
  /** How to authenticate (see nats-credentials.ts); none by default. */
  readonly auth?: NatsAuth;
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
/** The connect options that carry the credentials; a file is read now, and only its name reaches an error. */
const credentials = async (auth: NatsAuth): Promise<{ user?: string; pass?: string; token?: string; authenticator?: Authenticator }> => {
  const read = async (file: string, variable: string) => {
    try {
      return await readFile(file);
    } catch (cause) {
      throw new Error(`cannot read ${variable} ${file}: ${(cause as NodeJS.ErrnoException).code ?? "unreadable"}`, { cause });
    }
  };
  switch (auth.kind) {
    case "none":
      return {};
    case "user":
      return { user: auth.user, pass: auth.password };
    case "token":
      return { token: auth.token };
    case "nkey":
      return { authenticator: nkeyAuthenticator(new TextEncoder().encode((await read(auth.seedFile, "NATS_NKEY_SEED_FILE")).toString("utf8").trim())) };
  }
};

/** Names the servers for messages: never with a password or token, even if one was put in `servers`. */
const described = (servers: string) => maskUrlSecrets(servers);

export const natsConnectionLayer = (options: NatsConnectionOptions) =>
  Layer.effect(NatsClient)(
    Effect.gen(function* () {
      const timeout = options.requestTimeoutMs ?? 2_000;
      const connection = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () =>
            connect({
              servers: options.servers.split(",").map((server) => server.trim()),
              name: options.name ?? "image-transformation-service",
              maxReconnectAttempts: -1,
              reconnectTimeWait: 250,
              timeout,
              ...(await credentials(options.auth ?? { kind: "none" })),
            }),
          // The client's own error may quote what it was given: it is masked too.
          catch: (cause) =>
            new DependencyUnavailable({
              dependency: `nats (${described(options.servers)})`,
              cause: new Error(maskUrlSecrets(String((cause as Error)?.message ?? cause))),
            }),
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
