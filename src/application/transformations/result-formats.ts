import { Deferred, Effect, Option } from "effect";
import { MEDIA_TYPES, negotiateFormat, negotiatesFormat } from "../../domain/negotiate-format.ts";
import { type OutputFormat } from "../../domain/template-catalog/template.ts";
import { findTemplate } from "../../domain/template-catalog/template-catalog.ts";
import { EngineTenant } from "../../ports/engines/engine-tenant.ts";
import { ImageEngine } from "../../ports/engines/image-engine.ts";
import { ImageInspector } from "../../ports/engines/image-inspector.ts";
import type { DependencyUnavailable, EngineBusy, EngineTimeout } from "../../ports/errors.ts";
import { ResultStore, type StoredResult } from "../../ports/result-store.ts";

/** What the fetch asks for: a format the URL names (?format=), else what the browser's Accept header takes. */
export interface FormatChoice {
  readonly named?: OutputFormat;
  readonly accept?: string;
}

export interface ServedResult {
  readonly result: StoredResult;
  /** The Accept header chose the format: the response varies with it. */
  readonly negotiated: boolean;
}

type VariantError = DependencyUnavailable | EngineBusy | EngineTimeout;

const formatOf = (contentType: string): OutputFormat | undefined =>
  (Object.keys(MEDIA_TYPES) as Array<OutputFormat>).find((format) => MEDIA_TYPES[format] === contentType);

/** A variant is encoded as the `format` template of its format encodes (format/avif, format/webp, …). */
const variantOutput = (format: OutputFormat) => {
  const lookup = findTemplate("format", format);
  if (!lookup.found) throw new Error(`the catalog has no format/${format} template`);
  return { format, quality: lookup.template.output.quality };
};

/** Variant work is nobody's account: it takes its turn at the engine slots as a tenant of its own. */
const VARIANT_TENANT = "result-variants";

/**
 * Serves stored results in the format the fetch asks for (negotiate-format.ts). A variant is
 * transcoded once and kept in the result store beside its result, with its expiry; fetches of a
 * variant being made on this instance wait for that one transcode. Two instances sharing a store
 * may each make the same variant once: both encode the same pixels with the same settings, and the
 * second put replaces the first with an equal image, so no coordination is needed.
 */
export const makeResultFormats = () => {
  const inFlight = new Map<string, Deferred.Deferred<StoredResult, VariantError>>();

  const transcodeAndKeep = (resultId: string, original: StoredResult, format: OutputFormat) =>
    Effect.gen(function* () {
      // Our own stored image: one the inspector or engine refuses is a fault of ours, not of the client.
      const image = yield* Effect.orDie((yield* ImageInspector).inspect(original.bytes));
      const variant = yield* (yield* ImageEngine).transcode(image, variantOutput(format)).pipe(
        Effect.provideService(EngineTenant, VARIANT_TENANT),
        Effect.catchTag("InvalidImage", (error) => Effect.die(error)),
      );
      const stored: StoredResult = { bytes: variant.bytes, contentType: variant.contentType, expiresAt: original.expiresAt };
      yield* (yield* ResultStore).putVariant({ ...stored, resultId, format });
      return stored;
    });

  /**
   * The one transcode of this variant on this instance, in a fiber of its own: a fetch that leaves
   * stops waiting, while the variant is still made and kept for the others.
   */
  const madeOnce = (resultId: string, original: StoredResult, format: OutputFormat) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        const key = `${resultId}/${format}`;
        const running = inFlight.get(key);
        if (running !== undefined) return restore(Deferred.await(running));
        const done = Deferred.makeUnsafe<StoredResult, VariantError>();
        inFlight.set(key, done);
        const work = Effect.exit(transcodeAndKeep(resultId, original, format)).pipe(
          Effect.tap((exit) =>
            Effect.sync(() => {
              inFlight.delete(key);
              Deferred.doneUnsafe(done, exit);
            }),
          ),
        );
        return Effect.andThen(work.pipe(Effect.forkDetach({ uninterruptible: false })), restore(Deferred.await(done)));
      }),
    );

  const inFormat = (resultId: string, original: StoredResult, format: OutputFormat, now: Date) =>
    Effect.gen(function* () {
      const kept = yield* (yield* ResultStore).getVariant(resultId, format, now);
      return Option.isSome(kept) ? kept.value : yield* madeOnce(resultId, original, format);
    });

  /** The result in the chosen format; None when it is unknown or expired. */
  const serve = (resultId: string, now: Date, choice: FormatChoice) =>
    Effect.gen(function* () {
      const found = yield* (yield* ResultStore).get(resultId, now);
      if (Option.isNone(found)) return Option.none<ServedResult>();
      const original = found.value;
      const own = formatOf(original.contentType);
      // Anything but one of our image formats is served as stored.
      if (own === undefined) return Option.some({ result: original, negotiated: false });
      const negotiated = choice.named === undefined && negotiatesFormat(own);
      const format = choice.named ?? (negotiated ? negotiateFormat(choice.accept) : own);
      const result = format === own ? original : yield* inFormat(resultId, original, format, now);
      return Option.some({ result, negotiated });
    });

  return { serve };
};
