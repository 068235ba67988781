import { Effect, Layer } from "effect";
import { PersonSegmenter } from "../../ports/engines/person-segmenter.ts";
import { DependencyUnavailable, InvalidImage } from "../../ports/errors.ts";
import { decodeRaw } from "../image/raw-decoding.ts";
import { loadSelfieSegmentation, probabilitiesToAlpha } from "./selfie-segmentation-model.ts";

/**
 * PersonSegmenter on MediaPipe's selfie segmentation, run by onnxruntime-node. The model is
 * read, checksum-verified, converted and warmed when the layer is built, so the first request
 * pays nothing extra and a missing or altered model stops the service at start.
 */
export const SelfiePersonSegmenterLive = (options: { readonly threads?: number } = {}) =>
  Layer.effect(PersonSegmenter)(
    Effect.gen(function* () {
      const model = yield* Effect.tryPromise({
        try: async () => {
          const loaded = await loadSelfieSegmentation(options.threads ?? 2);
          await loaded.probabilities({ data: new Uint8Array(16 * 16 * 3), width: 16, height: 16, channels: 3 });
          return loaded;
        },
        catch: (cause) => new DependencyUnavailable({ dependency: "selfie segmentation model", cause }),
      });
      return {
        segment: (image) =>
          Effect.gen(function* () {
            const raw = yield* Effect.tryPromise({
              try: () => decodeRaw(image.bytes, false),
              catch: () => new InvalidImage({ message: "the image cannot be decoded" }),
            });
            const alpha = yield* Effect.tryPromise({
              try: async () => probabilitiesToAlpha(await model.probabilities(raw), raw.width, raw.height),
              catch: (cause) => new DependencyUnavailable({ dependency: "selfie segmentation model", cause }),
            });
            return { width: raw.width, height: raw.height, alpha };
          }),
      };
    }),
  );
