import path from "node:path";
import { Layer } from "effect";
import { filesystemResultStoreLayer } from "./adapters/results/filesystem-result-store.ts";
import { ConfigError } from "./config-error.ts";
import { IDEMPOTENCY_TTL_MS } from "./domain/idempotent-request.ts";
import type { EventStoreSelection } from "./event-store-registry.ts";
import { loaded, type NatsLayer } from "./lazy-adapters.ts";
import type { DependencyUnavailable } from "./ports/errors.ts";
import type { ResultStore } from "./ports/result-store.ts";

/**
 * Every result store kind, in one place: `RESULT_STORE`'s values, where each keeps results (read
 * from the configuration it shares with the rest of the service: DATA_DIR, the event store's
 * database, NATS), its layer (loaded only when chosen) and how it is named. A new kind is one
 * entry here; config and composition read nothing else.
 */

/** What a result store may be placed by: the service's own settings, not variables of its own. */
export interface ResultStorePlace {
  readonly eventStore: EventStoreSelection;
  readonly dataDir: string;
  readonly natsUrl: string | undefined;
  readonly natsNamespace: string;
  /** RESULT_TTL_SECONDS. */
  readonly ttlSeconds: number;
}

interface ResultStoreKind<S> {
  /** The kind's selection from the place; a ConfigError says what it needs that is missing. */
  readonly fromPlace: (place: ResultStorePlace) => S;
  /** `nats`: the connection, given when NATS_URL is set (a kind that needs it refuses its absence in `fromPlace`). */
  readonly layer: (selection: S, nats: NatsLayer | undefined) => Layer.Layer<ResultStore, DependencyUnavailable>;
  /** The store as logs name it, without any password. */
  readonly describe: (selection: S) => string;
}

const kind = <S>(definition: ResultStoreKind<S>): ResultStoreKind<S> => definition;

const postgresResultStoreLayer = loaded(
  () => import("./adapters/results/postgres-result-store.ts"),
  (m) => m.postgresResultStoreLayer,
);
const natsObjectResultStoreLayer = loaded(
  () => import("./adapters/results/nats-object-result-store.ts"),
  (m) => m.natsObjectResultStoreLayer,
);

export const resultStoreKinds = {
  /** DATA_DIR/results on this machine's disk: one instance. */
  filesystem: kind<{ readonly directory: string }>({
    fromPlace: (place) => ({ directory: path.join(place.dataDir, "results") }),
    layer: (selection) => filesystemResultStoreLayer(selection),
    describe: (selection) => `filesystem:${selection.directory}`,
  }),
  /** A `results` table beside the events, in the PostgreSQL event store's schema: every instance. */
  postgres: kind<{ readonly url: string; readonly schema: string }>({
    fromPlace: ({ eventStore }) => {
      if (eventStore.kind !== "postgres")
        throw new ConfigError("RESULT_STORE=postgres keeps results in the event store's database: it needs EVENT_STORE=postgres");
      return { url: eventStore.url, schema: eventStore.schema };
    },
    layer: (selection) => postgresResultStoreLayer({ connectionString: selection.url, schema: selection.schema }),
    describe: (selection) => `postgres (schema ${selection.schema})`,
  }),
  /**
   * A JetStream Object Store, any event store: every instance. `ttlSeconds`: the bucket's age limit,
   * the longest anything in it lives (results, idempotent responses).
   */
  nats: kind<{ readonly namespace: string; readonly ttlSeconds: number }>({
    fromPlace: (place) => {
      if (place.natsUrl === undefined) throw new ConfigError("RESULT_STORE=nats keeps results in a JetStream Object Store: it needs NATS_URL");
      return { namespace: place.natsNamespace, ttlSeconds: Math.max(place.ttlSeconds, IDEMPOTENCY_TTL_MS / 1000) };
    },
    layer: (selection, nats) => {
      if (nats === undefined) throw new Error("RESULT_STORE=nats without NATS_URL");
      return natsObjectResultStoreLayer(selection).pipe(Layer.provide(nats));
    },
    describe: (selection) => `nats (bucket ${selection.namespace}-results)`,
  }),
};

export type ResultStoreName = keyof typeof resultStoreKinds;

type SelectionOf<T> = T extends ResultStoreKind<infer S> ? S : never;

/** Where results are kept, as configuration names it: the kind and what its entry made of the place. */
export type ResultStoreSelection = { readonly [K in ResultStoreName]: { readonly kind: K } & SelectionOf<(typeof resultStoreKinds)[K]> }[ResultStoreName];

export const resultStoreNames = Object.keys(resultStoreKinds) as [ResultStoreName, ...Array<ResultStoreName>];

// A selection's kind names its entry: the entry takes the selection it made.
const entryOf = (selection: ResultStoreSelection) => resultStoreKinds[selection.kind] as Pick<ResultStoreKind<ResultStoreSelection>, "layer" | "describe">;

export const selectResultStore = (kind: ResultStoreName, place: ResultStorePlace): ResultStoreSelection =>
  ({ kind, ...resultStoreKinds[kind].fromPlace(place) }) as ResultStoreSelection;

export const resultStoreLayerFor = (selection: ResultStoreSelection, nats: NatsLayer | undefined) => entryOf(selection).layer(selection, nats);

export const describeResultStore = (selection: ResultStoreSelection): string => entryOf(selection).describe(selection);
