import { Effect, Layer } from "effect";

/**
 * The adapters only some configurations use (KurrentDB, PostgreSQL, NATS), loaded when the
 * composition root picks them and not before: their clients (gRPC and protobuf, the NATS and
 * PostgreSQL drivers) cost every start ≈ 0.2 s of loading, and the default configuration (SQLite,
 * in-process bus, results on disk) never uses them. Each function takes the adapter's own options
 * and gives its layer; the module is imported while the layer is built.
 */
const loaded =
  <M, O, A, E, R>(load: () => Promise<M>, make: (module: M) => (options: O) => Layer.Layer<A, E, R>) =>
  (options: O): Layer.Layer<A, E, R> =>
    Layer.unwrap(Effect.map(Effect.promise(load), (module) => make(module)(options)));

export const kurrentDbEventStoreLayer = loaded(
  () => import("./adapters/event-store/kurrentdb-event-store.ts"),
  (m) => m.kurrentDbEventStoreLayer,
);
export const postgresEventStoreLayer = loaded(
  () => import("./adapters/event-store/postgres-event-store.ts"),
  (m) => m.postgresEventStoreLayer,
);
export const postgresResultStoreLayer = loaded(
  () => import("./adapters/results/postgres-result-store.ts"),
  (m) => m.postgresResultStoreLayer,
);
export const natsConnectionLayer = loaded(
  () => import("./adapters/nats/nats-connection.ts"),
  (m) => m.natsConnectionLayer,
);
export const jetStreamEventBusLayer = loaded(
  () => import("./adapters/nats/jetstream-event-bus.ts"),
  (m) => m.jetStreamEventBusLayer,
);
export const kvRateLimiterLayer = loaded(
  () => import("./adapters/nats/kv-rate-limiter.ts"),
  (m) => m.kvRateLimiterLayer,
);
export const natsObjectResultStoreLayer = loaded(
  () => import("./adapters/results/nats-object-result-store.ts"),
  (m) => m.natsObjectResultStoreLayer,
);
