import { Effect, Layer } from "effect";

/**
 * The adapters only some configurations use (KurrentDB, PostgreSQL, NATS), loaded when the
 * composition root picks them and not before: their clients (gRPC and protobuf, the NATS and
 * PostgreSQL drivers) cost every start ≈ 0.2 s of loading, and the default configuration (SQLite,
 * in-process bus, results on disk) never uses them. Each function takes the adapter's own options
 * and gives its layer; the module is imported while the layer is built. Event store kinds load
 * theirs in their own registry entry (event-store-registry.ts), and so do result stores
 * (result-store-registry.ts).
 */
export const loaded =
  <M, O, A, E, R>(load: () => Promise<M>, make: (module: M) => (options: O) => Layer.Layer<A, E, R>) =>
  (options: O): Layer.Layer<A, E, R> =>
    Layer.unwrap(Effect.map(Effect.promise(load), (module) => make(module)(options)));

export const natsConnectionLayer = loaded(
  () => import("./adapters/nats/nats-connection.ts"),
  (m) => m.natsConnectionLayer,
);
export type NatsLayer = ReturnType<typeof natsConnectionLayer>;
export const jetStreamEventBusLayer = loaded(
  () => import("./adapters/nats/jetstream-event-bus.ts"),
  (m) => m.jetStreamEventBusLayer,
);
export const kvRateLimiterLayer = loaded(
  () => import("./adapters/nats/kv-rate-limiter.ts"),
  (m) => m.kvRateLimiterLayer,
);
