import fs from "node:fs";
import { Context, Effect, Layer } from "effect";
import { copyAllEvents, type EventsSummary } from "../../application/event-sourcing/copy-events.ts";
import { ConfigError } from "../../config-error.ts";
import { describeStore, eventStoreLayerFor, type EventStoreSelection, parseStoreLocation, storeLocationHelp } from "../../event-store-registry.ts";
import { EventStore } from "../../ports/event-store.ts";
import { nodeSha256 } from "../crypto/node-sha256.ts";

/**
 * `itsctl store migrate --from KIND:LOCATION --to KIND:LOCATION`: copies every event of one store
 * into an empty one of any kind, in global order, and verifies count and checksum of what arrived.
 */
export class MigrationError extends Error {}

/** Parses `KIND:LOCATION` for any event store kind (`sqlite:PATH`, `postgres:URL`, …). */
export const parseStoreSpec = (spec: string): EventStoreSelection => {
  const notAStore = () => new MigrationError(`not a store: "${spec}" (expected ${storeLocationHelp})`);
  if (spec.slice(spec.indexOf(":") + 1) === "") throw notAStore();
  let selection: EventStoreSelection | undefined;
  try {
    selection = parseStoreLocation(spec);
  } catch (error) {
    throw new MigrationError(error instanceof ConfigError ? `${error.message} in "${spec}"` : String(error));
  }
  if (selection === undefined) throw notAStore();
  return selection;
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
