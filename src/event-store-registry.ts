import path from "node:path";
import type { Layer } from "effect";
import { defaultPostgresSchema } from "./adapters/event-store/postgres-schema-name.ts";
import { sqliteEventStoreLayer } from "./adapters/event-store/sqlite-event-store.ts";
import { type NatsAuth, splitNatsUrl } from "./adapters/nats/nats-credentials.ts";
import { ConfigError } from "./config-error.ts";
import { natsFrom } from "./config-nats.ts";
import { loaded } from "./lazy-adapters.ts";
import type { DependencyUnavailable } from "./ports/errors.ts";
import type { EventStore } from "./ports/event-store.ts";

/**
 * Every event store kind, in one place: `EVENT_STORE`'s values, the variables each reads, its
 * layer (loaded only when chosen) and how it is named in logs and `itsctl store migrate`. A new
 * kind is one entry here; config, composition and itsctl read nothing else.
 */
type Environment = Readonly<Record<string, string | undefined>>;

/** What opening any store may be told beside its selection. */
export interface EventStoreOpening {
  readonly sqliteSynchronous?: "normal" | "full";
}

interface EventStoreKind<S> {
  /** The variables read when EVENT_STORE names this kind (docs/operations.md lists them). */
  readonly variables: ReadonlyArray<string>;
  /** The kind's selection from them; a ConfigError names the variable that is missing or wrong. */
  readonly fromEnvironment: (env: Environment, dataDir: string) => S;
  /** `itsctl store migrate`'s `<kind>:LOCATION`: its help, and LOCATION read (a ConfigError when it is not one). */
  readonly location: { readonly help: string; readonly parse: (location: string) => S };
  readonly layer: (selection: S, opening: EventStoreOpening) => Layer.Layer<EventStore, DependencyUnavailable>;
  /** The store as logs and itsctl name it, without any password. */
  readonly describe: (selection: S) => string;
}

const kind = <S>(definition: EventStoreKind<S>): EventStoreKind<S> => definition;

const withoutPassword = (url: string): string => {
  const parsed = new URL(url);
  if (parsed.password !== "") parsed.password = "***";
  return parsed.href;
};

const notAPostgresUrl = "not a PostgreSQL URL: expected postgres://user:password@host:5432/database";

/**
 * `postgres://…?schema=name` names the PostgreSQL schema that holds the events (default event_store):
 * one URL says everything, for DATABASE_URL and for `itsctl store migrate`. The parameter is ours, not
 * the driver's, so it is taken out of the URL the driver sees.
 */
export const postgresLocation = (url: string): { readonly url: string; readonly schema: string } => {
  const parsed = URL.parse(url);
  if (parsed === null || !/^postgres(ql)?:$/.test(parsed.protocol)) throw new ConfigError(notAPostgresUrl);
  const schema = parsed.searchParams.get("schema") ?? defaultPostgresSchema;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError(`schema "${schema}" in the PostgreSQL URL: use lower-case letters, digits and _ (at most 63), not starting with a digit`);
  }
  parsed.searchParams.delete("schema");
  return { url: parsed.href, schema };
};

const kurrentDbLocation = (url: string): { readonly url: string } => {
  if (!/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\/\S+$/.test(url)) throw new ConfigError("not a KurrentDB URL: expected kurrentdb://host:2113?tls=false");
  return { url };
};

/** `nats://host:4222[,…][?stream=NAME]`: the servers (credentials as in NATS_URL) and the stream, default its-event-store. */
const natsLocation = (location: string): NatsStoreSelection => {
  const [servers = "", query = ""] = location.split("?", 2);
  const stream = new URLSearchParams(query).get("stream") ?? "its-event-store";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(stream)) throw new ConfigError(`stream "${stream}": use 1-64 of A-Z a-z 0-9 _ -`);
  try {
    return { stream, ...splitNatsUrl(servers) };
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
};

interface NatsStoreSelection {
  readonly servers: string;
  readonly auth: NatsAuth;
  readonly stream: string;
}

/** A variable a kind cannot do without: its value, or a ConfigError saying what to set. */
const required = (env: Environment, variable: string, needed: string): string => {
  const value = env[variable];
  if (value === undefined || value === "") throw new ConfigError(needed);
  return value;
};

/** A variable's value read by `parse`, its ConfigError prefixed with the variable's name. */
const parsedVariable = <A>(variable: string, value: string, parse: (value: string) => A): A => {
  try {
    return parse(value);
  } catch (error) {
    throw error instanceof ConfigError ? new ConfigError(`Invalid configuration: ${variable}: ${error.message}`) : error;
  }
};

export const eventStoreKinds = {
  /** One file under DATA_DIR, for one machine. */
  sqlite: kind<{ readonly path: string }>({
    variables: [],
    fromEnvironment: (_env, dataDir) => ({ path: path.join(dataDir, "events.sqlite") }),
    location: { help: "sqlite:PATH", parse: (location) => ({ path: path.resolve(location) }) },
    layer: (selection, opening) => sqliteEventStoreLayer({ path: selection.path, synchronous: opening.sqliteSynchronous ?? "normal" }),
    describe: (selection) => `sqlite:${selection.path}`,
  }),
  /** One store that several instances (and the CLI) share. */
  postgres: kind<{ readonly url: string; readonly schema: string }>({
    variables: ["DATABASE_URL"],
    fromEnvironment: (env) =>
      parsedVariable(
        "DATABASE_URL",
        required(env, "DATABASE_URL", "EVENT_STORE=postgres needs DATABASE_URL, e.g. postgres://user:password@host:5432/db?schema=event_store"),
        // Whitespace in the variable is a pasting mistake, refused as it always was.
        (url) => {
          if (/\s/.test(url)) throw new ConfigError(notAPostgresUrl);
          return postgresLocation(url);
        },
      ),
    location: { help: "postgres:postgres://user@host:5432/db[?schema=name]", parse: postgresLocation },
    // Loaded only when chosen, as every kind with a client package: the driver costs every other start.
    layer: (selection) =>
      loaded(
        () => import("./adapters/event-store/postgres-event-store.ts"),
        (m) => m.postgresEventStoreLayer,
      )({ connectionString: selection.url, schema: selection.schema }),
    describe: (selection) => `postgres:${withoutPassword(selection.url)} (schema ${selection.schema})`,
  }),
  /** One store that several instances (and the CLI) share. */
  kurrentdb: kind<{ readonly url: string }>({
    variables: ["KURRENTDB_URL"],
    fromEnvironment: (env) =>
      parsedVariable(
        "KURRENTDB_URL",
        required(env, "KURRENTDB_URL", "EVENT_STORE=kurrentdb needs KURRENTDB_URL, e.g. kurrentdb://host:2113?tls=false"),
        kurrentDbLocation,
      ),
    location: { help: "kurrentdb:kurrentdb://host:2113[?tls=false]", parse: kurrentDbLocation },
    layer: (selection) =>
      loaded(
        () => import("./adapters/event-store/kurrentdb-event-store.ts"),
        (m) => m.kurrentDbEventStoreLayer,
      )({ connectionString: selection.url }),
    describe: (selection) => `kurrentdb:${withoutPassword(selection.url)}`,
  }),
  /** A NATS JetStream stream, for a fleet that runs NATS already (bus, rate limits, results) and wants no database beside it. */
  nats: kind<NatsStoreSelection>({
    variables: ["NATS_URL", "NATS_TOKEN", "NATS_NKEY_SEED_FILE", "NATS_NAMESPACE"],
    fromEnvironment: (env) => {
      const { natsUrl, natsAuth } = natsFrom({
        ...(env["NATS_URL"] ? { NATS_URL: env["NATS_URL"] } : {}),
        ...(env["NATS_TOKEN"] ? { NATS_TOKEN: env["NATS_TOKEN"] } : {}),
        ...(env["NATS_NKEY_SEED_FILE"] ? { NATS_NKEY_SEED_FILE: env["NATS_NKEY_SEED_FILE"] } : {}),
      });
      if (natsUrl === undefined) throw new ConfigError("EVENT_STORE=nats needs NATS_URL, e.g. nats://host:4222");
      return { servers: natsUrl, auth: natsAuth, stream: `${env["NATS_NAMESPACE"] || "its"}-event-store` };
    },
    location: { help: "nats:nats://host:4222[?stream=its-event-store]", parse: natsLocation },
    layer: (selection) =>
      loaded(
        () => import("./adapters/event-store/jetstream-event-store.ts"),
        (m) => m.jetStreamEventStoreLayer,
      )(selection),
    describe: (selection) => `nats:${selection.servers} (stream ${selection.stream})`,
  }),
};

export type EventStoreKindName = keyof typeof eventStoreKinds;

type SelectionOf<T> = T extends EventStoreKind<infer S> ? S : never;

/** Where the events live: a kind's name and what its entry read. */
export type EventStoreSelection = { readonly [K in EventStoreKindName]: { readonly kind: K } & SelectionOf<(typeof eventStoreKinds)[K]> }[EventStoreKindName];

export const eventStoreKindNames = Object.keys(eventStoreKinds) as [EventStoreKindName, ...Array<EventStoreKindName>];

/** Every variable any kind reads, so that configuration passes them through. */
export const eventStoreVariables = [...new Set(Object.values(eventStoreKinds).flatMap((entry) => entry.variables))];

// A selection's kind names its entry: the entry takes the selection it made.
const entryOf = (selection: EventStoreSelection) => eventStoreKinds[selection.kind] as Pick<EventStoreKind<EventStoreSelection>, "layer" | "describe">;

export const selectEventStore = (kindName: EventStoreKindName, env: Environment, dataDir: string): EventStoreSelection =>
  ({ kind: kindName, ...eventStoreKinds[kindName].fromEnvironment(env, dataDir) }) as EventStoreSelection;

/** The event store a selection names; `itsctl store migrate` opens two of them this way. */
export const eventStoreLayerFor = (selection: EventStoreSelection, opening: EventStoreOpening = {}) => entryOf(selection).layer(selection, opening);

/** A store named for messages, without any password in its URL. */
export const describeStore = (selection: EventStoreSelection): string => entryOf(selection).describe(selection);

/** `KIND:LOCATION` for each kind, as itsctl's help lists them. */
export const storeLocationHelp = Object.values(eventStoreKinds)
  .map((entry) => entry.location.help)
  .join(", ");

/** Reads `KIND:LOCATION`; undefined when KIND names no kind. A LOCATION that its kind cannot read throws ConfigError. */
export const parseStoreLocation = (spec: string): EventStoreSelection | undefined => {
  const colon = spec.indexOf(":");
  const kindName = spec.slice(0, Math.max(colon, 0));
  if (!Object.hasOwn(eventStoreKinds, kindName)) return undefined;
  return { kind: kindName, ...eventStoreKinds[kindName as EventStoreKindName].location.parse(spec.slice(colon + 1)) } as EventStoreSelection;
};
