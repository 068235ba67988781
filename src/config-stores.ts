import path from "node:path";
import { defaultPostgresSchema } from "./adapters/event-store/postgres-schema-name.ts";
import { type NatsAuth, splitNatsUrl } from "./adapters/nats/nats-credentials.ts";
import { IDEMPOTENCY_TTL_MS } from "./domain/idempotent-request.ts";

/** Where the service keeps things, as configuration names them: the event store, the results, NATS. */

/** A configuration that cannot work: the message names the variable. */
export class ConfigError extends Error {}

/**
 * Where the events live. SQLite: one file under DATA_DIR, for one machine. PostgreSQL and KurrentDB:
 * one store that several instances (and the CLI) share.
 */
export type EventStoreSelection =
  | { readonly kind: "sqlite"; readonly path: string }
  | { readonly kind: "postgres"; readonly url: string; readonly schema: string }
  | { readonly kind: "kurrentdb"; readonly url: string };

export type ResultStoreSelection =
  | { readonly kind: "filesystem"; readonly directory: string }
  | { readonly kind: "postgres"; readonly url: string; readonly schema: string }
  /** `ttlSeconds`: the bucket's age limit, the longest anything in it lives (results, idempotent responses). */
  | { readonly kind: "nats"; readonly namespace: string; readonly ttlSeconds: number };

/**
 * `postgres://…?schema=name` names the PostgreSQL schema that holds the events (default event_store):
 * one URL says everything, for DATABASE_URL and for `itsctl store migrate`. The parameter is ours, not
 * the driver's, so it is taken out of the URL the driver sees.
 */
export const postgresLocation = (url: string): { readonly url: string; readonly schema: string } => {
  const parsed = URL.parse(url);
  if (parsed === null || !/^postgres(ql)?:$/.test(parsed.protocol))
    throw new ConfigError("not a PostgreSQL URL: expected postgres://user:password@host:5432/database");
  const schema = parsed.searchParams.get("schema") ?? defaultPostgresSchema;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError(`schema "${schema}" in the PostgreSQL URL: use lower-case letters, digits and _ (at most 63), not starting with a digit`);
  }
  parsed.searchParams.delete("schema");
  return { url: parsed.href, schema };
};

export const selectEventStore = (
  kind: EventStoreSelection["kind"],
  databaseUrl: string | undefined,
  kurrentDbUrl: string | undefined,
  dataDir: string,
): EventStoreSelection => {
  switch (kind) {
    case "sqlite":
      return { kind, path: path.join(dataDir, "events.sqlite") };
    case "postgres":
      if (databaseUrl === undefined) {
        throw new ConfigError("EVENT_STORE=postgres needs DATABASE_URL, e.g. postgres://user:password@host:5432/db?schema=event_store");
      }
      return { kind, ...postgresLocation(databaseUrl) };
    case "kurrentdb":
      if (kurrentDbUrl === undefined) throw new ConfigError("EVENT_STORE=kurrentdb needs KURRENTDB_URL, e.g. kurrentdb://host:2113?tls=false");
      return { kind, url: kurrentDbUrl };
  }
};

export /** NATS_URL and at most one way of authenticating: in the URL, a token, or an nkey seed file. */
const natsFrom = (e: {
  readonly NATS_URL?: string;
  readonly NATS_TOKEN?: string;
  readonly NATS_NKEY_SEED_FILE?: string;
}): { readonly natsUrl: string | undefined; readonly natsAuth: NatsAuth } => {
  const given: Array<readonly [string, NatsAuth]> = [];
  if (e.NATS_TOKEN !== undefined) given.push(["NATS_TOKEN", { kind: "token", token: e.NATS_TOKEN }]);
  if (e.NATS_NKEY_SEED_FILE !== undefined) given.push(["NATS_NKEY_SEED_FILE", { kind: "nkey", seedFile: path.resolve(e.NATS_NKEY_SEED_FILE) }]);
  if (e.NATS_URL === undefined) {
    if (given.length > 0) throw new ConfigError(`${given.map(([name]) => name).join(", ")} set without NATS_URL`);
    return { natsUrl: undefined, natsAuth: { kind: "none" } };
  }
  let split: ReturnType<typeof splitNatsUrl>;
  try {
    split = splitNatsUrl(e.NATS_URL);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (split.auth.kind !== "none") given.unshift(["credentials in NATS_URL", split.auth]);
  if (given.length > 1) throw new ConfigError(`NATS: give one way of authenticating, not ${given.map(([name]) => name).join(" and ")}`);
  return { natsUrl: split.servers, natsAuth: given[0]?.[1] ?? { kind: "none" } };
};

export const selectResultStore = (
  kind: "filesystem" | "postgres" | "nats",
  where: { readonly eventStore: EventStoreSelection; readonly dataDir: string; readonly natsUrl: string | undefined; readonly natsNamespace: string },
  ttlSeconds: number,
): ResultStoreSelection => {
  switch (kind) {
    case "filesystem":
      return { kind, directory: path.join(where.dataDir, "results") };
    case "postgres":
      if (where.eventStore.kind !== "postgres")
        throw new ConfigError("RESULT_STORE=postgres keeps results in the event store's database: it needs EVENT_STORE=postgres");
      return { kind, url: where.eventStore.url, schema: where.eventStore.schema };
    case "nats":
      if (where.natsUrl === undefined) throw new ConfigError("RESULT_STORE=nats keeps results in a JetStream Object Store: it needs NATS_URL");
      return { kind, namespace: where.natsNamespace, ttlSeconds: Math.max(ttlSeconds, IDEMPOTENCY_TTL_MS / 1000) };
  }
};
