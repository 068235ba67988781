import { Effect, Layer } from "effect";
import { ImageEngine } from "../../ports/engines/image-engine.ts";
import { type EngineCapacityOptions, makeEngineCapacity } from "../engine-capacity.ts";

/**
 * Decorates whichever ImageEngine is below it with a bounded work queue:
 * `boundedImageEngineLayer(options).pipe(Layer.provide(sharpImageEngineLayer()))`.
 */
export const boundedImageEngineLayer = (options: EngineCapacityOptions = {}) =>
  Layer.effect(ImageEngine)(
    Effect.gen(function* () {
      const engine = yield* ImageEngine;
      const capacity = makeEngineCapacity(options);
      return {
        render: (image, template, options) => capacity.run(engine.render(image, template, options)),
        transcode: (image, output) => capacity.run(engine.transcode(image, output)),
        // An account's design waits in the same queue as the catalog's templates: one engine, one capacity.
        renderDesign: (design, inputs) => capacity.run(engine.renderDesign(design, inputs)),
      };
    }),
  );
