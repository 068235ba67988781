import type { ObjectStore } from "@nats-io/obj";
import { Objm } from "@nats-io/obj";
import { Effect, Layer, Option } from "effect";
import { DependencyUnavailable } from "../../ports/errors.ts";
import { ResultStore, type ResultStoreShape, type StoredResult } from "../../ports/result-store.ts";
import { NatsClient } from "../nats/nats-connection.ts";
import { natsNames } from "../nats/nats-names.ts";
import { isSafeResultId } from "./result-id.ts";

export interface NatsObjectResultStoreOptions {
  /** NATS_NAMESPACE: the bucket is `<namespace>-results`. */
  readonly namespace: string;
  /** RESULT_TTL_SECONDS: the bucket's own age limit, so the server drops results nobody swept. */
  readonly ttlSeconds: number;
}

const unavailable = (cause: unknown) => new DependencyUnavailable({ dependency: "result-store (nats object store)", cause });

/**
 * The server deletes an object this long after its URL expired, not before: instances' clocks
 * differ a little from the server's, and a URL must never outlive its result.
 */
const SERVER_TTL_MARGIN_SECONDS = 300;
const nanos = (seconds: number) => seconds * 1_000_000_000;

/** Metadata keys on each object (the bytes are the object itself). */
const CONTENT_TYPE = "content-type";
const EXPIRES_AT = "expires-at";

const expiryOf = (metadata: Record<string, string> | undefined): Date | undefined => {
  const at = metadata?.[EXPIRES_AT];
  const date = at === undefined ? undefined : new Date(at);
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date;
};

/**
 * Results in a JetStream Object Store on the NATS the deployment already runs, so every instance
 * serves every result URL (also after the instance that made it is gone) whatever the event
 * store. The bucket's age limit (the result TTL plus a margin) lets the server itself drop what
 * the periodic sweep never reached, e.g. when every instance was down. A variant is the object
 * `<id>.<format>` (ids hold no "."), with its result's expiry, so the sweep and the age limit take both.
 */
export const makeNatsObjectResultStore = (bucket: ObjectStore): ResultStoreShape => {
  const call = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: unavailable });
  const unsafe = (resultId: string) => Effect.die(new Error(`unsafe result id ${JSON.stringify(resultId)}`));
  const write = (name: string, { bytes, contentType, expiresAt }: StoredResult) =>
    call(() => bucket.putBlob({ name, metadata: { [CONTENT_TYPE]: contentType, [EXPIRES_AT]: expiresAt.toISOString() } }, bytes)).pipe(Effect.asVoid);
  const read = (name: string, now: Date) =>
    Effect.gen(function* () {
      const info = yield* call(() => bucket.info(name));
      const expiresAt = expiryOf(info?.metadata);
      if (info === null || info.deleted || expiresAt === undefined || expiresAt <= now) return Option.none();
      const bytes = yield* call(() => bucket.getBlob(name));
      // Deleted between the two reads: as unknown.
      if (bytes === null) return Option.none();
      return Option.some({ bytes, contentType: info.metadata?.[CONTENT_TYPE] ?? "application/octet-stream", expiresAt });
    });
  return {
    put: (result) => (isSafeResultId(result.resultId) ? write(result.resultId, result) : unsafe(result.resultId)),
    get: (resultId, now) => (isSafeResultId(resultId) ? read(resultId, now) : Effect.succeed(Option.none())),
    putVariant: (variant) => (isSafeResultId(variant.resultId) ? write(`${variant.resultId}.${variant.format}`, variant) : unsafe(variant.resultId)),
    getVariant: (resultId, format, now) => (isSafeResultId(resultId) ? read(`${resultId}.${format}`, now) : Effect.succeed(Option.none())),
    deleteExpired: (now) =>
      call(async () => {
        let deleted = 0;
        for (const info of await bucket.list()) {
          const expiresAt = expiryOf(info.metadata);
          if (expiresAt !== undefined && expiresAt > now) continue;
          await bucket.delete(info.name);
          deleted += 1;
        }
        return deleted;
      }),
  };
};

/** The bucket, made on first use; an existing one gets the configured age limit if it had another. */
const openBucket = (options: NatsObjectResultStoreOptions) =>
  Effect.gen(function* () {
    const nats = yield* NatsClient;
    const name = natsNames(options.namespace).resultBucket;
    const maxAge = nanos(options.ttlSeconds + SERVER_TTL_MARGIN_SECONDS);
    return yield* Effect.tryPromise({
      try: async () => {
        const bucket = await new Objm(nats.jetstream).create(name, { ttl: maxAge });
        const stream = await nats.manager.streams.info(`OBJ_${name}`);
        if (stream.config.max_age !== maxAge) await nats.manager.streams.update(`OBJ_${name}`, { max_age: maxAge });
        return bucket;
      },
      catch: unavailable,
    });
  });

export const natsObjectResultStoreLayer = (options: NatsObjectResultStoreOptions) =>
  Layer.effect(ResultStore)(Effect.map(openBucket(options), makeNatsObjectResultStore));
