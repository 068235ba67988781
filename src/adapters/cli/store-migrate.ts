import fs from "node:fs";
import path from "node:path";
import { Context, Effect, Layer } from "effect";
import { copyAllEvents, type EventsSummary } from "../../application/event-sourcing/copy-events.ts";
import { eventStoreLayerFor } from "../../composition.ts";
import { ConfigError, type EventStoreSelection, postgresLocation } from "../../config.ts";
import { EventStore } from "../../ports/event-store.ts";
import { nodeSha256 } from "../crypto/node-sha256.ts";

/**
 * `itsctl store migrate --from KIND:LOCATION --to KIND:LOCATION`: copies every event of one store
 * into an empty one of any kind, in global order, and verifies count and checksum of what arrived.
 */
export class MigrationError extends Error {}

const SPEC_HELP = "sqlite:PATH, postgres:postgres://user@host:5432/db[?schema=name] or kurrentdb:kurrentdb://host:2113[?tls=false]";

/** Parses `sqlite:PATH`, `postgres:URL` or `kurrentdb:URL`. */
export const parseStoreSpec = (spec: string): EventStoreSelection => {
  const colon = spec.indexOf(":");
  const kind = colon < 0 ? "" : spec.slice(0, colon);
  const location = spec.slice(colon + 1);
  if (location === "") throw new MigrationError(`not a store: "${spec}" (expected ${SPEC_HELP})`);
  switch (kind) {
    case "sqlite":
      return { kind, path: path.resolve(location) };
    case "postgres":
      try {
        return { kind, ...postgresLocation(location) };
      } catch (error) {
        throw new MigrationError(error instanceof ConfigError ? error.message : String(error));
      }
    case "kurrentdb":
      if (!/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//.test(location))
        throw new MigrationError(`not a KurrentDB URL in "${spec}" (expected ${SPEC_HELP})`);
      return { kind, url: location };
    default:
      throw new MigrationError(`not a store: "${spec}" (expected ${SPEC_HELP})`);
  }
};

/** A store named for messages, without any password in its URL. */
export const describeStore = (selection: EventStoreSelection): string => {
  if (selection.kind === "sqlite") return `sqlite:${selection.path}`;
  const url = new URL(selection.url);
  if (url.password !== "") url.password = "***";
  return selection.kind === "postgres" ? `postgres:${url.href} (schema ${selection.schema})` : `kurrentdb:${url.href}`;
};

const open = (selection: EventStoreSelection) => Layer.build(eventStoreLayerFor(selection)).pipe(Effect.map((context) => Context.get(context, EventStore)));

export const migrateStore = (from: EventStoreSelection, to: EventStoreSelection): Promise<EventsSummary> => {
  // Opening a SQLite path creates the file: a mistyped source would copy nothing, successfully.
  if (from.kind === "sqlite" && !fs.existsSync(from.path)) throw new MigrationError(`no such SQLite file: ${from.path}`);
  const migration = Effect.gen(function* () {
    const source = yield* open(from);
    if ((yield* source.readAll({ after: 0, limit: 1 })).length === 0) {
      return yield* Effect.fail(new MigrationError(`${describeStore(from)} holds no events: nothing to migrate`));
    }
    return yield* copyAllEvents(source, yield* open(to), { sha256: nodeSha256 });
  }).pipe(
    Effect.scoped,
    Effect.catchTags({
      TargetStoreNotEmpty: (error) =>
        Effect.fail(new MigrationError(`${describeStore(to)} already holds events (first: stream ${error.firstStreamName}); migrate into an empty store`)),
      CopyVerificationFailed: ({ copied, target }) =>
        Effect.fail(
          new MigrationError(
            `verification failed: copied ${copied.count} events (SHA-256 ${copied.checksum}) but the target holds ${target.count} (SHA-256 ${target.checksum})`,
          ),
        ),
      ConcurrencyConflict: (conflict) =>
        Effect.fail(new MigrationError(`stream ${conflict.streamName} changed in the target while copying; migrate into a store nothing else writes to`)),
      DependencyUnavailable: (error) => Effect.fail(new MigrationError(`${error.dependency} unavailable: ${String(error.cause)}`)),
    }),
  );
  return Effect.runPromise(migration);
};
